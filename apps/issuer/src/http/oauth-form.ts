import { InvalidRequestError } from '@mission/protocol-errors';
import { formPairs } from './form-urlencoded.js';

const FORM_TYPE = 'application/x-www-form-urlencoded';
const EMPTY = Buffer.alloc(0);

/**
 * The parameters of an OAuth form request, read from the exact bytes received:
 * - RFC 6749 §3.2 / RFC 9126 §2.1: the body is `application/x-www-form-urlencoded`;
 * - RFC 6749 §3.1: a parameter MUST NOT appear more than once;
 * - RFC 6749 §3.1: a parameter sent without a value is treated as omitted.
 */
export class OAuthForm {
  private record: Readonly<Record<string, string>> | undefined;

  private constructor(private readonly values: ReadonlyMap<string, string>) {}

  static parse(contentType: string | undefined, rawBody: Buffer | undefined): OAuthForm {
    const mediaType = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
    if (mediaType !== FORM_TYPE) throw new InvalidRequestError(`the request body must be ${FORM_TYPE}`);
    const values = new Map<string, string>();
    for (const [name, value] of formPairs(rawBody ?? EMPTY)) {
      if (values.has(name)) throw new InvalidRequestError(`parameter ${name} is repeated`);
      values.set(name, value);
    }
    for (const [name, value] of values) if (value === '') values.delete(name);
    return new OAuthForm(values);
  }

  static fromQuery(query: string): OAuthForm {
    return OAuthForm.parse(FORM_TYPE, Buffer.from(query, 'utf8'));
  }

  optional(name: string, maxLength = 8192): string | undefined {
    const value = this.values.get(name);
    if (value !== undefined && value.length > maxLength) throw new InvalidRequestError(`parameter ${name} is longer than ${maxLength} characters`);
    return value;
  }

  required(name: string, maxLength?: number): string {
    const value = this.optional(name, maxLength);
    if (value === undefined) throw new InvalidRequestError(`parameter ${name} is missing`);
    return value;
  }

  has(name: string): boolean {
    return this.values.has(name);
  }

  names(): string[] {
    return [...this.values.keys()];
  }

  /**
   * The parameters as a plain record, as `@mission/issuer-oauth` checks take them: built once per form (a
   * request reads it for client authentication and again for its parameters) and frozen, since it is shared.
   * Assigned member by member (about 5x cheaper than Object.fromEntries here); `__proto__` is defined as an own
   * member, as Object.fromEntries did, instead of being assigned (which would set the prototype).
   */
  toRecord(): Readonly<Record<string, string>> {
    if (this.record !== undefined) return this.record;
    const record: Record<string, string> = {};
    for (const [name, value] of this.values) {
      if (name === '__proto__') Object.defineProperty(record, name, { value, writable: true, enumerable: true, configurable: true });
      else record[name] = value;
    }
    this.record = Object.freeze(record);
    return this.record;
  }
}

/** The parts of an Express request a form-based OAuth endpoint reads. */
export interface FormRequest {
  readonly headers: { readonly [name: string]: string | string[] | undefined };
  readonly rawBody?: Buffer;
}

export function formOf(request: FormRequest): OAuthForm {
  const contentType = request.headers['content-type'];
  return OAuthForm.parse(Array.isArray(contentType) ? contentType[0] : contentType, request.rawBody);
}
