import { ApiProperty, type ApiPropertyOptions } from '@nestjs/swagger';
import { IsDefined, IsOptional, MaxLength, validateSync, type ValidationError } from 'class-validator';
import { InvalidRequestError, ProtocolError } from '@mission/protocol-errors';
import type { OAuthForm } from './oauth-form.js';

/**
 * Request shapes as class-validator DTOs: one class per form an endpoint reads, one decorated property per
 * parameter it knows (named as on the wire). `formParameters` runs after the strict form parse (OAuthForm:
 * media type, repeated parameters, empty values) and before the protocol rules (client authentication,
 * DPoP, PKCE, subset), which stay in their one-rule-per-file pipelines.
 *
 * Checks run per parameter in declaration order and stop at the first failure, so the answer names one
 * problem, exactly as the hand-written checks did: `parameter X is missing`, `parameter X is longer than N
 * characters`, then the parameter's own shape (the decorators written above `@FormParameter`).
 *
 * The same declaration is the parameter's OpenAPI schema (ADR 0047): a string, its length bound, whether it is
 * required, plus what `doc` adds (description, enum, pattern).
 */
export function FormParameter(
  maxLength: number,
  options: { readonly required?: boolean; readonly doc?: Pick<ApiPropertyOptions, 'description' | 'enum' | 'pattern' | 'example'> } = {},
): PropertyDecorator {
  return (target, key) => {
    const name = String(key);
    ApiProperty({ type: 'string', maxLength, required: options.required === true, ...options.doc } as ApiPropertyOptions)(target, key);
    if (options.required === true) IsDefined({ message: `parameter ${name} is missing` })(target, key);
    else IsOptional()(target, key);
    MaxLength(maxLength, { message: `parameter ${name} is longer than ${maxLength} characters` })(target, key);
  };
}

/** The protocol error a failed shape check answers with; `invalid_request` unless a decorator names another. */
export type ShapeErrorFactory = (description: string) => ProtocolError;

/** The context a shape decorator passes to answer with another error than `invalid_request` (e.g. `invalid_grant`). */
export function answeredWith(factory: ShapeErrorFactory): { readonly context: { readonly answer: ShapeErrorFactory } } {
  return { context: { answer: factory } };
}

/**
 * The exception factory: the first failed constraint of the first failed parameter as today's OAuth JSON error
 * (`{"error":"invalid_request","error_description":…}` unless the constraint's context names another answer).
 */
export function shapeError(errors: readonly ValidationError[]): ProtocolError {
  const first = errors[0]!;
  const [constraint, message] = Object.entries(first.constraints ?? {})[0] ?? ['', `parameter ${first.property} is not valid`];
  const answer = (first.contexts?.[constraint] as { answer?: ShapeErrorFactory } | undefined)?.answer;
  return answer ? answer(message) : new InvalidRequestError(message);
}

/** The form's parameters as an instance of `Dto`, shape-checked; unknown parameters are ignored (RFC 6749 §3.1). */
export function formParameters<Dto extends object>(dto: new () => Dto, form: OAuthForm): Dto {
  const checked = checkedFormParameters(dto, form);
  if (checked instanceof ProtocolError) throw checked;
  return checked;
}

/**
 * The same, with the refusal returned instead of thrown: for a use case that must check something else first
 * (e.g. DESIGN 2.1: the mission a lifecycle request names is checked before the rest of the request).
 */
export function checkedFormParameters<Dto extends object>(dto: new () => Dto, form: OAuthForm): Dto | ProtocolError {
  const parameters = new dto();
  const values = form.toRecord();
  for (const name of Object.keys(parameters)) {
    if (Object.hasOwn(values, name)) (parameters as Record<string, unknown>)[name] = values[name];
  }
  const errors = validateSync(parameters, { stopAtFirstError: true, forbidUnknownValues: true });
  return errors.length > 0 ? shapeError(errors) : parameters;
}
