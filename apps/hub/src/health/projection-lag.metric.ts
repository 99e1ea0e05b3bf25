import { projectionLags } from '@hcn/read-models';
import { Gauge } from 'prom-client';
import type { DataSource } from 'typeorm';
import type { HubMetrics } from '../common/metrics';

/**
 * `hcn_projection_lag_seconds{projection}`: how long the newest event each projection applied took to reach the read
 * models (from projection_checkpoints, read at scrape time, so it covers a projector in another process too).
 */
export function registerProjectionLag(metrics: HubMetrics, db: DataSource): Gauge<'projection'> {
  return new Gauge({
    name: 'hcn_projection_lag_seconds',
    help: 'Time from an event being recorded to its projection being committed (newest applied event)',
    labelNames: ['projection'],
    registers: [metrics.registry],
    async collect() {
      this.reset();
      const lags = await projectionLags(db.manager).catch(() => []);
      for (const lag of lags) if (lag.lagSeconds !== null) this.set({ projection: lag.name }, lag.lagSeconds);
    },
  });
}
