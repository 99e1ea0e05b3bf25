import { PostgresEventStore, SubscriptionHealth } from '@hcn/eventstore';
import { startMetricsServer } from '@hcn/platform';
import { openReadModels } from '@hcn/read-models';
import { createTestDatabase, describeWithPostgres } from '@hcn/testing';
import { createProjections } from './projections';
import { startProjector } from './projector';
import { ProjectorMetrics } from './projector-metrics';
import { scenarioIds, writePlacements, writeSetup } from './testing/scenario-log';

/** The value of a sample line `name{...labels}` (labels matched as a subset), or undefined. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`)))
      return Number(line.split(' ').at(-1));
  }
  return undefined;
}

describeWithPostgres("the projector's /metrics (real PostgreSQL, its own listener)", () => {
  it('serves events applied per projection, batch durations, lag, its subscription and build info', async () => {
    const database = await createTestDatabase('proj_metrics');
    const store = await PostgresEventStore.connect({
      connectionString: database.url,
      polling: { pollIntervalMs: 50 },
    });
    const db = await openReadModels(database.url, 4);
    const health = new SubscriptionHealth();
    const metrics = new ProjectorMetrics(health);
    const server = await startMetricsServer({ host: '127.0.0.1', port: 0 }, metrics.registry);
    try {
      const ids = scenarioIds();
      await writeSetup(store, ids);
      await writePlacements(store, ids);
      const projector = await startProjector(store, db, { health, onApplied: metrics.onApplied });
      await projector.whenCaughtUp();
      await projector.stop();

      const response = await fetch(`${server.url}/metrics`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
      const text = await response.text();
      const applied = createProjections().map(
        (p) => sample(text, 'hcn_projector_events_applied_total', { projection: p.name }) ?? 0,
      );
      expect(applied.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
      const nodes =
        createProjections().find((p) => p.name === 'node-state')?.name ?? createProjections()[0].name;
      expect(sample(text, 'hcn_projector_batch_seconds_count', { projection: nodes })).toBeGreaterThan(0);
      expect(text).toMatch(/^hcn_projector_lag_seconds\{projection="[^"]+"\} \d/m);
      expect(sample(text, 'hcn_subscription_failing', { subscription: 'projector' })).toBe(0);
      const head = (await store.readAll()).at(-1)!.position.commit;
      expect(sample(text, 'hcn_subscription_position', { subscription: 'projector' })).toBe(Number(head));
      expect(text).toMatch(
        /^hcn_build_info\{app="projector",version="[^"]+",commit="[^"]*",node="v[\d.]+"\} 1$/m,
      );
      expect((await fetch(`${server.url}/other`)).status).toBe(404);
      expect((await fetch(`${server.url}/metrics`, { method: 'POST' })).status).toBe(404);
    } finally {
      await server.close();
      await store.close();
      await db.destroy();
      await database.drop();
    }
  });
});
