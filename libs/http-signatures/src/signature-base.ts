import { componentValue } from './component-value.js';
import { HttpSignatureError } from './http-signature-error.js';
import type { HttpMessage } from './http-message.js';
import { serializeSignatureParams, type SignatureParams } from './signature-params.js';

/**
 * RFC 9421 §2.5: the signature base — one `"<component>": <value>` line per covered component, then the
 * `"@signature-params"` line, joined by LF with no trailing newline. Refuses absent, duplicate and
 * unsupported components.
 */
export function signatureBase(
  message: HttpMessage,
  components: readonly string[],
  params: SignatureParams,
): string {
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const name of components) {
    if (seen.has(name)) throw new HttpSignatureError('duplicate_component', `component ${name} is covered twice`);
    seen.add(name);
    lines.push(`"${name}": ${componentValue(message, name)}`);
  }
  lines.push(`"@signature-params": ${serializeSignatureParams(components, params)}`);
  return lines.join('\n');
}
