import { Controller, Get, Header, Res } from '@nestjs/common';
import type { Response } from 'express';
import { ReadinessRegistry } from './readiness.js';

@Controller()
export class HealthController {
  constructor(private readonly readiness: ReadinessRegistry) {}

  /** Liveness: the process answers HTTP. Deliberately checks nothing else, so a slow dependency never gets the pod killed. */
  @Get('healthz')
  @Header('Cache-Control', 'no-store')
  healthz(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('readyz')
  async readyz(@Res() response: Response): Promise<void> {
    const report = await this.readiness.evaluate();
    response
      .status(report.ready ? 200 : 503)
      .set('Cache-Control', 'no-store')
      .json({ status: report.ready ? 'ready' : 'not_ready', checks: report.checks });
  }
}
