import { Controller, Get, Res } from '@nestjs/common';
import type { Response } from 'express';
import { ServiceMetrics } from './service-metrics.js';

/** /metrics on the public port; with MANAGEMENT_PORT set it moves to the management server instead. */
@Controller()
export class MetricsController {
  constructor(private readonly metrics: ServiceMetrics) {}

  @Get('metrics')
  async metricsText(@Res() response: Response): Promise<void> {
    const text = await this.metrics.registry.metrics();
    response.status(200).set('Content-Type', this.metrics.registry.contentType).set('Cache-Control', 'no-store').send(text);
  }
}
