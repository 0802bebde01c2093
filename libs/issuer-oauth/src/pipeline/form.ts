/** An `application/x-www-form-urlencoded` body as the platform parses it (repeated names become arrays). */
export type FormParameters = Readonly<Record<string, unknown>>;

export type FormValue = { readonly kind: 'absent' } | { readonly kind: 'value'; readonly value: string } | { readonly kind: 'invalid' };

/**
 * One form parameter: absent, a single string, or invalid (repeated, RFC 6749 §3.2 "parameters MUST NOT be
 * included more than once", or not a string). An empty value counts as absent (RFC 6749 §3.1).
 */
export function formValue(form: FormParameters, name: string): FormValue {
  if (!Object.hasOwn(form, name)) return { kind: 'absent' };
  const value = form[name];
  if (value === undefined || value === '') return { kind: 'absent' };
  if (typeof value !== 'string') return { kind: 'invalid' };
  return { kind: 'value', value };
}
