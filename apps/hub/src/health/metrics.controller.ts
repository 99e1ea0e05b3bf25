import { Controller, Get, Header } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Public } from '../auth/auth.guard';
import { HubMetrics } from '../common/metrics';

/** Prometheus metrics at /metrics: on the main listener, or only on the ops listener when HCN_OPS_HTTP_PORT is set. */
@ApiExcludeController()
@Public()
@Controller()
export class MetricsController {
  constructor(private readonly metrics: HubMetrics) {}

  @Get('metrics')
  @Header('content-type', 'text/plain; version=0.0.4')
  async prometheus(): Promise<string> {
    return this.metrics.registry.metrics();
  }
}
