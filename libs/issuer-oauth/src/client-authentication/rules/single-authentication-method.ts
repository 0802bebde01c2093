import { InvalidClientError } from '../../errors/invalid-client.error.js';
import { formValue } from '../../pipeline/form.js';
import type { ClientAuthenticationContext } from '../context.js';

// RFC 6749 §2.3: a client MUST NOT use more than one authentication method in a request (no client_secret, no Authorization header beside the assertion).
export function singleAuthenticationMethod({ form, headers }: ClientAuthenticationContext): void {
  if (formValue(form, 'client_secret').kind !== 'absent' || (headers.authorization ?? '') !== '') {
    throw new InvalidClientError('only one client authentication method may be used (private_key_jwt)');
  }
}
