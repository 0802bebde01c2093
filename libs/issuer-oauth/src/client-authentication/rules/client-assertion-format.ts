import { decodeJwt, decodeProtectedHeader } from 'jose';
import { InvalidClientError } from '../../errors/invalid-client.error.js';
import { isCompactJws } from '../../pipeline/compact-jwt.js';
import { formValue } from '../../pipeline/form.js';
import type { ClientAuthenticationContext } from '../context.js';

// RFC 7521 §4.2 / RFC 7523 §3: client_assertion is present once and is a single JWT in JWS compact serialization.
export function clientAssertionFormat(context: ClientAuthenticationContext): void {
  const assertion = formValue(context.form, 'client_assertion');
  if (assertion.kind === 'absent') throw new InvalidClientError('client_assertion is required');
  if (assertion.kind === 'invalid') throw new InvalidClientError('client_assertion must be given exactly once');
  if (!isCompactJws(assertion.value)) throw new InvalidClientError('client_assertion is not a signed JWT');
  try {
    context.header = decodeProtectedHeader(assertion.value);
    context.claims = decodeJwt(assertion.value);
  } catch {
    throw new InvalidClientError('client_assertion is not a signed JWT');
  }
  context.assertion = assertion.value;
}
