import { Public } from '../auth/auth.guard';
import { EVENT_STORE, EventStore } from '@hcn/eventstore';
import { Controller, Get, Inject, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import type { DataSource } from 'typeorm';
import { HubMetrics } from '../common/metrics';
import { RETRY_AFTER_SECONDS } from '../common/problem';
import { READ_MODELS } from '../tokens';

/** Liveness and readiness (Prometheus metrics: MetricsController). */
@ApiExcludeController()
@Public()
@Controller()
export class HealthController {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(READ_MODELS) private readonly db: DataSource,
    private readonly metrics: HubMetrics,
  ) {}

  @Get('healthz')
  health(): { status: string } {
    return { status: 'ok' };
  }

  /** 200 when the store, the read models and every subscription work; else 503 with `Retry-After`. */
  @Get('readyz')
  async ready(@Res() res: Response): Promise<void> {
    const checks: Record<string, string> = {};
    // what failed is logged by the store and the subscriptions; readiness says only which part (no raw errors)
    await this.store.readStream('$readiness-probe').then(
      () => (checks.eventStore = 'ok'),
      () => (checks.eventStore = 'unavailable'),
    );
    await this.db.query('SELECT 1').then(
      () => (checks.readModels = 'ok'),
      () => (checks.readModels = 'unavailable'),
    );
    for (const s of this.metrics.subscriptions.failing())
      checks[`subscription:${s.name}`] = `failing since ${s.failingSince} (${s.failures} failures)`;
    const ok = Object.values(checks).every((v) => v === 'ok');
    if (!ok) res.setHeader('Retry-After', String(RETRY_AFTER_SECONDS));
    res.status(ok ? 200 : 503).json({ status: ok ? 'ready' : 'not ready', checks });
  }
}
