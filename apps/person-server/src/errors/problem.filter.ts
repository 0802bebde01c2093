import { Catch, Inject, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { ErrorResponseFilter, LOGGER, type Logger } from '@mission/platform';
import { toProblem } from './problem-table.js';

/**
 * The Person Server's one exception filter (spec 7): every error of a PS route — a guard's refusal, a
 * request shape, a ps-domain refusal — is mapped by the one table (problem-table.ts) and sent as
 * `application/problem+json` by the platform's error response writer. Anything unmapped is a 500.
 */
@Catch()
export class ProblemFilter implements ExceptionFilter {
  private readonly writer: ErrorResponseFilter;

  constructor(@Inject(LOGGER) logger: Logger) {
    this.writer = new ErrorResponseFilter(logger, 'problem');
  }

  catch(exception: unknown, host: ArgumentsHost): void {
    this.writer.catch(toProblem(exception), host);
  }
}
