import { NewEvent, heartbeatStream, nodeStream } from '@hcn/contracts';
import { PostgresEventStore } from '@hcn/eventstore';
import { openReadModels } from '@hcn/read-models';
import { createTestDatabase, describeWithPostgres } from '@hcn/testing';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { nodeStateProjection } from './projections/node-state.projection';
import { startProjector } from './projector';
import { rebuildProjection, renderProgress } from './rebuild';

function event(type: string, data: unknown, at: string): NewEvent {
  return {
    eventId: randomUUID(),
    type,
    data,
    metadata: {
      correlationId: 'spec',
      causationId: 'spec',
      actor: { kind: 'system', id: 'spec' },
      occurredAt: at,
    },
  };
}

function registration(nodeId: string, domainId: string, i: number) {
  return {
    nodeId,
    domainId,
    hostname: `host-${i}`,
    arch: i % 2 ? 'arm64' : 'x64',
    os: 'linux',
    cpuCores: 4 + i,
    memoryBytes: (8 + i) * 2 ** 30,
    diskBytes: 100 * 2 ** 30,
    labels: { zone: `z${i % 3}` },
    isHead: i === 0,
    agentVersion: 'spec',
  };
}

async function tables(db: DataSource): Promise<unknown[]> {
  return Promise.all([
    db.query('SELECT * FROM node_state ORDER BY node_id'),
    db.query('SELECT * FROM domain_summary ORDER BY domain_id'),
  ]);
}

describeWithPostgres('projector (real PostgreSQL)', () => {
  it('applies each event once across restarts, and a rebuild from zero gives identical tables', async () => {
    const database = await createTestDatabase('proj');
    const store = await PostgresEventStore.connect({
      connectionString: database.url,
      polling: { pollIntervalMs: 100 },
    });
    const db = await openReadModels(database.url, 4);
    try {
      const nodes = Array.from({ length: 12 }, (_, i) => ({
        id: randomUUID(),
        domain: i < 7 ? 'dom-a' : 'dom-b',
        i,
      }));
      const at = (s: number) => new Date(Date.UTC(2026, 10, 22, 0, 0, s)).toISOString();
      for (const n of nodes)
        await store.append(
          nodeStream(n.id),
          [event('NodeRegistered', registration(n.id, n.domain, n.i), at(0))],
          'no_stream',
        );
      let projector = await startProjector(store, db);
      await projector.whenCaughtUp();
      for (let seq = 0; seq < 5; seq++) {
        await Promise.all(
          nodes.map((n) =>
            store.append(
              heartbeatStream(n.id),
              [
                event(
                  'NodeHeartbeatRecorded',
                  {
                    nodeId: n.id,
                    seq,
                    sentAt: at(seq + 1),
                    runningAllocations: [],
                    usage: {
                      cpuUsage: (n.i + seq) / 40,
                      memoryUsedBytes: seq * 2 ** 30,
                      diskUsedBytes: 2 ** 30,
                    },
                  },
                  at(seq + 1),
                ),
              ],
              'any',
            ),
          ),
        );
        if (seq === 2) {
          await projector.stop(); // restart mid-stream: resumes after its checkpoint
          projector = await startProjector(store, db);
        }
      }
      await store.append(
        nodeStream(nodes[0].id),
        [event('NodeDrainRequested', { nodeId: nodes[0].id, reason: 'spec' }, at(9))],
        0,
      );
      await store.append(
        nodeStream(nodes[1].id),
        [event('NodeWentOffline', { nodeId: nodes[1].id, lastSeenAt: at(5), ttlSeconds: 15 }, at(9))],
        0,
      );
      await store.append(
        nodeStream(nodes[2].id),
        [event('NodeLabelsChanged', { nodeId: nodes[2].id, labels: { zone: 'z9' } }, at(9))],
        0,
      );
      const total = await store.approximateEventCount();
      await new Promise((r) => setTimeout(r, 300));
      projector = await (async () => (await projector.stop(), startProjector(store, db)))();
      await projector.whenCaughtUp();
      await projector.stop();

      const live = await tables(db);
      const [nodeRows, domainRows] = live as [Array<Record<string, unknown>>, Array<Record<string, unknown>>];
      expect(nodeRows).toHaveLength(12);
      expect(nodeRows.filter((r) => r.last_heartbeat_seq === 4)).toHaveLength(12);
      expect(domainRows.map((r) => [r.domain_id, r.nodes_online, r.nodes_offline, r.nodes_draining])).toEqual(
        [
          ['dom-a', 6, 1, 1],
          ['dom-b', 5, 0, 0],
        ],
      );
      const checkpoint = await db.query(
        `SELECT events_applied FROM projection_checkpoints WHERE name = 'node-state'`,
      );
      expect(Number(checkpoint[0].events_applied)).toBe(total);

      const lines: string[] = [];
      const result = await rebuildProjection(store, db, nodeStateProjection, (p) =>
        lines.push(renderProgress('node-state', p)),
      );
      expect(result.read).toBe(total);
      expect(lines[lines.length - 1]).toContain('100%');
      expect(await tables(db)).toEqual(live);
    } finally {
      await store.close();
      await db.destroy();
      await database.drop();
    }
  });

  it('moves a re-registered node between domains and refreshes both summaries', async () => {
    const database = await createTestDatabase('proj_move');
    const store = await PostgresEventStore.connect({
      connectionString: database.url,
      polling: { pollIntervalMs: 100 },
    });
    const db = await openReadModels(database.url, 4);
    try {
      const [a, b] = [randomUUID(), randomUUID()];
      const at = new Date(Date.UTC(2026, 10, 22)).toISOString();
      await store.append(
        nodeStream(a),
        [event('NodeRegistered', registration(a, 'dom-x', 1), at)],
        'no_stream',
      );
      await store.append(
        nodeStream(b),
        [event('NodeRegistered', registration(b, 'dom-x', 2), at)],
        'no_stream',
      );
      await store.append(nodeStream(a), [event('NodeReregistered', registration(a, 'dom-y', 1), at)], 0);
      const projector = await startProjector(store, db);
      await projector.whenCaughtUp();
      await projector.stop();
      const rows = await db.query('SELECT domain_id, nodes_online FROM domain_summary ORDER BY domain_id');
      expect(rows).toEqual([
        { domain_id: 'dom-x', nodes_online: 1 },
        { domain_id: 'dom-y', nodes_online: 1 },
      ]);
    } finally {
      await store.close();
      await db.destroy();
      await database.drop();
    }
  });
});
