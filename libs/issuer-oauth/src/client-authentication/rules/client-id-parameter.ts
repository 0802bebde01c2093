import { InvalidClientError } from '../../errors/invalid-client.error.js';
import { formValue } from '../../pipeline/form.js';
import type { ClientAuthenticationContext } from '../context.js';

// RFC 7521 §4.2: a client_id parameter, when sent, identifies the same client as the assertion's sub.
export function clientIdParameter({ form, claims }: ClientAuthenticationContext): void {
  const clientId = formValue(form, 'client_id');
  if (clientId.kind === 'invalid') throw new InvalidClientError('client_id must be given at most once');
  if (clientId.kind === 'value' && clientId.value !== claims!.sub) throw new InvalidClientError('client_id does not match the client_assertion');
}
