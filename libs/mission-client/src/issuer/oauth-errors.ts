import * as oauth from 'oauth4webapi';
import { MissionClientError, ProtocolError } from '../core/errors.js';

/** Maps oauth4webapi's errors onto the SDK's: an OAuth error response becomes a {@link ProtocolError}. */
export function sdkError(error: unknown): Error {
  if (error instanceof MissionClientError) return error;
  if (error instanceof oauth.ResponseBodyError) {
    return new ProtocolError(error.status, error.error, error.error_description, error.cause as unknown as Record<string, unknown>);
  }
  if (error instanceof oauth.AuthorizationResponseError) return new ProtocolError(400, error.error, error.error_description);
  if (error instanceof oauth.WWWAuthenticateChallengeError) {
    const challenge = error.cause[0];
    return new ProtocolError(error.status, challenge?.parameters.error ?? 'invalid_client', challenge?.parameters.error_description);
  }
  if (error instanceof oauth.OperationProcessingError) return new MissionClientError('invalid_response', error.message);
  if (error instanceof TypeError && typeof (error as { code?: unknown }).code === 'string') return new MissionClientError('invalid_request', error.message);
  return error instanceof Error ? error : new Error(String(error));
}

/** Awaits `call`, rethrowing any failure as an SDK error. */
export async function mapped<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw sdkError(error);
  }
}
