/**
 * Test helper (specs only: uses jest's `expect`): asserts an OAuth error answer — HTTP status, `error`, the spec 7
 * `mission_denial_reason` (absent when `reason` is not given) and `Cache-Control: no-store` — and returns the body.
 */
export async function expectRefusal(response: Response, status: number, error: string, reason?: string): Promise<Record<string, unknown>> {
  const body = (await response.json()) as Record<string, unknown>;
  expect({ status: response.status, error: body['error'], mission_denial_reason: body['mission_denial_reason'] }).toEqual({ status, error, mission_denial_reason: reason });
  expect(response.headers.get('cache-control')).toBe('no-store');
  return body;
}
