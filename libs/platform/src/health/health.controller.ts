import { Controller, Get, Header, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { liveness, readinessAnswer } from '../management/management-answers.js';
import { ReadinessRegistry } from './readiness.js';

const READINESS_SCHEMA = {
  type: 'object',
  required: ['status', 'checks'],
  properties: {
    status: { type: 'string', enum: ['ready', 'not_ready'] },
    checks: { type: 'array', items: { type: 'object', required: ['name', 'ok'], properties: { name: { type: 'string' }, ok: { type: 'boolean' }, detail: { type: 'string' } } } },
  },
};

/** /healthz and /readyz on the public port; with MANAGEMENT_PORT set they move to the management server instead. */
@ApiTags('operations')
@Controller()
export class HealthController {
  constructor(private readonly readiness: ReadinessRegistry) {}

  /** Liveness: the process answers HTTP. Deliberately checks nothing else, so a slow dependency never gets the pod killed. */
  @Get('healthz')
  @ApiOperation({ summary: 'Liveness', description: 'On MANAGEMENT_PORT instead when it is set (then 404 here).' })
  @ApiOkResponse({ content: { 'application/json': { schema: { type: 'object', required: ['status'], properties: { status: { type: 'string', enum: ['ok'] } } } } } })
  @Header('Cache-Control', 'no-store')
  healthz(): { status: 'ok' } {
    return liveness();
  }

  @Get('readyz')
  @ApiOperation({ summary: 'Readiness: the event store answers, projections caught up, process managers running', description: 'On MANAGEMENT_PORT instead when it is set (then 404 here).' })
  @ApiOkResponse({ description: 'Ready', content: { 'application/json': { schema: READINESS_SCHEMA } } })
  @ApiServiceUnavailableResponse({ description: 'Not ready (a check failed, or the service is shutting down)', content: { 'application/json': { schema: READINESS_SCHEMA } } })
  async readyz(@Res() response: FastifyReply): Promise<void> {
    const answer = await readinessAnswer(this.readiness);
    response.status(answer.status).header('Cache-Control', 'no-store').send(answer.body);
  }
}
