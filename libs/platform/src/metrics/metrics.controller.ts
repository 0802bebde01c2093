import { Controller, Get, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { ServiceMetrics } from './service-metrics.js';

/** /metrics on the public port; with MANAGEMENT_PORT set it moves to the management server instead. */
@ApiTags('operations')
@Controller()
export class MetricsController {
  constructor(private readonly metrics: ServiceMetrics) {}

  @Get('metrics')
  @ApiOperation({ summary: 'Prometheus metrics (text exposition format)', description: 'On MANAGEMENT_PORT instead when it is set (then 404 here).' })
  @ApiProduces('text/plain; version=0.0.4; charset=utf-8')
  @ApiOkResponse({ content: { 'text/plain; version=0.0.4; charset=utf-8': { schema: { type: 'string' } } } })
  async metricsText(@Res() response: FastifyReply): Promise<void> {
    const text = await this.metrics.registry.metrics();
    response.status(200).header('Content-Type', this.metrics.registry.contentType).header('Cache-Control', 'no-store').send(text);
  }
}
