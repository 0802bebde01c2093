import { InvalidClientError } from '../../errors/invalid-client.error.js';
import { formValue } from '../../pipeline/form.js';
import { CLIENT_ASSERTION_TYPE_JWT_BEARER, type ClientAuthenticationContext } from '../context.js';

// RFC 7521 §4.2 / RFC 7523 §2.2: client_assertion_type is present once and is the JWT bearer URN (private_key_jwt only).
export function clientAssertionType({ form }: ClientAuthenticationContext): void {
  const type = formValue(form, 'client_assertion_type');
  if (type.kind === 'absent') {
    throw new InvalidClientError(formValue(form, 'client_assertion').kind === 'absent' ? 'client authentication is required (private_key_jwt)' : 'client_assertion_type is required');
  }
  if (type.kind === 'invalid') throw new InvalidClientError('client_assertion_type must be given exactly once');
  if (type.value !== CLIENT_ASSERTION_TYPE_JWT_BEARER) throw new InvalidClientError(`client_assertion_type must be ${CLIENT_ASSERTION_TYPE_JWT_BEARER}`);
}
