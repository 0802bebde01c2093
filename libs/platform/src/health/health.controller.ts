import { Controller, Get, Header, Res } from '@nestjs/common';
import type { Response } from 'express';
import { liveness, readinessAnswer } from '../management/management-answers.js';
import { ReadinessRegistry } from './readiness.js';

/** /healthz and /readyz on the public port; with MANAGEMENT_PORT set they move to the management server instead. */
@Controller()
export class HealthController {
  constructor(private readonly readiness: ReadinessRegistry) {}

  /** Liveness: the process answers HTTP. Deliberately checks nothing else, so a slow dependency never gets the pod killed. */
  @Get('healthz')
  @Header('Cache-Control', 'no-store')
  healthz(): { status: 'ok' } {
    return liveness();
  }

  @Get('readyz')
  async readyz(@Res() response: Response): Promise<void> {
    const answer = await readinessAnswer(this.readiness);
    response.status(answer.status).set('Cache-Control', 'no-store').json(answer.body);
  }
}
