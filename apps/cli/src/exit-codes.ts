/** Exit codes scripts can rely on (documented in the README). */
export const EXIT = {
  ok: 0,
  /** The service refused the request (a protocol error: 4xx/5xx with an error code). */
  refused: 1,
  /** Bad usage: unknown command, missing argument or flag. */
  usage: 2,
  /** Bad local input: key file, URL, client id. */
  config: 3,
  /** The service could not be reached. */
  unreachable: 4,
  /** `status`: the mission is not active (terminated, revoked, suspended, cascaded, ...) or nothing could be established. */
  notActive: 10,
} as const;
