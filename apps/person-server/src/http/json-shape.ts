import { validateSync, type ValidationError } from 'class-validator';
import type { ProblemError } from '../errors/problem-error.js';
import { InvalidRequestProblem } from '../errors/problems.js';

/**
 * JSON body shapes as class-validator DTOs: one class per body a use case reads, one decorated property per
 * member it knows (named as on the wire). `jsonShape` runs after the strict parse (strict-json-body.ts:
 * duplicate member names are invalid_request) and before the protocol rules (RFC 9421, roles, idempotency,
 * the mission gate), which stay in their own one-rule-per-file pipelines.
 *
 * Checks run per member in declaration order and stop at the first failure, so the answer names one
 * problem, exactly as the hand-written checks did. class-validator runs a property's decorators bottom-up;
 * {@link InOrder} applies several in the order they are written.
 */
export function InOrder(...checks: PropertyDecorator[]): PropertyDecorator {
  return (target, key) => {
    for (const check of checks) check(target, key);
  };
}

/** The context a check passes to answer with another problem than `invalid_request` (e.g. `unsupported_operation`). */
export function answeredWith(problem: () => ProblemError): { readonly context: { readonly answer: () => ProblemError } } {
  return { context: { answer: problem } };
}

/**
 * The exception factory: the first failed check of the first failed member as today's problem+json —
 * `400 invalid_request` with the check's message as `detail`, unless the check's context names another answer.
 */
export function shapeProblem(errors: readonly ValidationError[]): ProblemError {
  const first = errors[0]!;
  const [check, message] = Object.entries(first.constraints ?? {})[0] ?? ['', `${first.property} is not valid`];
  const answer = (first.contexts?.[check] as { answer?: () => ProblemError } | undefined)?.answer;
  return answer ? answer() : new InvalidRequestProblem(message);
}

/**
 * The members of a parsed JSON body as an instance of `Dto`, shape-checked; a body that is no JSON object is
 * `invalid_request` with `notAnObject` as detail. Members the DTO does not declare are ignored.
 */
export function jsonShape<Dto extends object>(dto: new () => Dto, body: unknown, notAnObject: string): Dto {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new InvalidRequestProblem(notAnObject);
  const shaped = new dto();
  for (const name of Object.keys(shaped)) {
    if (Object.hasOwn(body, name)) (shaped as Record<string, unknown>)[name] = (body as Record<string, unknown>)[name];
  }
  const errors = validateSync(shaped, { stopAtFirstError: true, forbidUnknownValues: true });
  if (errors.length > 0) throw shapeProblem(errors);
  return shaped;
}
