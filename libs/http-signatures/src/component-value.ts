import { HttpSignatureError } from './http-signature-error.js';
import { fieldLines, isRequest, type HttpMessage } from './http-message.js';

/** Derived components we support (RFC 9421 §2.2); `@query-param` and the `;req`/`;sf`/`;bs`/`;key` flags are not. */
export const DERIVED_COMPONENTS = [
  '@method',
  '@target-uri',
  '@authority',
  '@scheme',
  '@request-target',
  '@path',
  '@query',
  '@status',
] as const;

export type DerivedComponent = (typeof DERIVED_COMPONENTS)[number];

const FIELD_NAME = /^[!#$%&'*+\-.^_`|~0-9a-z]+$/;

/** RFC 9421 §2.2: the value of one derived component. */
function derivedValue(message: HttpMessage, name: string): string {
  if (name === '@status') {
    if (isRequest(message)) throw new HttpSignatureError('unsupported_component', '@status is for responses');
    return String(message.status);
  }
  if (!(DERIVED_COMPONENTS as readonly string[]).includes(name)) {
    throw new HttpSignatureError('unsupported_component', `unsupported derived component ${name}`);
  }
  if (!isRequest(message)) throw new HttpSignatureError('unsupported_component', `${name} is for requests`);
  const url = new URL(message.url);
  switch (name) {
    case '@method':
      return message.method;
    case '@target-uri':
      return `${url.protocol}//${url.host}${url.pathname}${url.search}`;
    case '@authority':
      // URL lower-cases the host and drops the scheme's default port (§2.2.3).
      return url.host;
    case '@scheme':
      return url.protocol.slice(0, -1);
    case '@request-target':
      return `${url.pathname}${url.search}`;
    case '@path':
      return url.pathname === '' ? '/' : url.pathname;
    default: // '@query' (§2.2.7): an absent query is "?"
      return url.search === '' ? '?' : url.search;
  }
}

/**
 * RFC 9421 §2.1: a header field's component value — each field line trimmed, obsolete line folding
 * replaced by a space, lines combined with ", ". An absent field is refused (§2.5).
 */
function fieldValue(message: HttpMessage, name: string): string {
  if (!FIELD_NAME.test(name)) {
    throw new HttpSignatureError('unsupported_component', `field component names are lower-case tokens: ${name}`);
  }
  const lines = fieldLines(message.headers, name);
  if (lines === undefined) throw new HttpSignatureError('missing_component', `covered field ${name} is absent`);
  const value = lines.map((line) => line.replace(/\r?\n[ \t]+/g, ' ').trim()).join(', ');
  if (/[\r\n]/.test(value)) throw new HttpSignatureError('missing_component', `covered field ${name} is malformed`);
  return value;
}

/** The component value for a component name (derived components start with `@`). */
export function componentValue(message: HttpMessage, name: string): string {
  if (name === '@signature-params') {
    throw new HttpSignatureError('unsupported_component', '@signature-params cannot be covered');
  }
  return name.startsWith('@') ? derivedValue(message, name) : fieldValue(message, name);
}
