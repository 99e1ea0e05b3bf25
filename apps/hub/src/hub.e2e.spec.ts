import { AgentReport, heartbeatStream, nodeStream, withMac } from '@hcn/contracts';

type HeartbeatReport = Extract<AgentReport, { kind: 'heartbeat' }>;
import { DLQ_HEADERS, IncomingMessage } from '@hcn/messaging';
import { AGENT_REPORTS_TOPIC, commandTopicFor } from '@hcn/platform';
import { describeWithPostgres, eventually } from '@hcn/testing';
import { randomUUID } from 'node:crypto';
import { HubHarness, registrationBody, startHubHarness } from './testing/hub-harness';

/** A heartbeat MACed with `key` (the node's, or another one to forge). */
function heartbeat(
  nodeId: string,
  key: string,
  seq: number,
  overrides: Partial<HeartbeatReport> = {},
): HeartbeatReport {
  return withMac(key, {
    kind: 'heartbeat' as const,
    nodeId,
    domainId: 'site-a',
    seq,
    sentAt: new Date().toISOString(),
    usage: { cpuUsage: 0.25, memoryUsedBytes: 8 * 2 ** 30, diskUsedBytes: 100 * 2 ** 30 },
    ...overrides,
  });
}

describeWithPostgres(
  'hub (HTTP API + ingestion + liveness + projector, real PostgreSQL, in-process bus)',
  () => {
    let h: HubHarness;
    let eventsBefore: number;
    beforeAll(async () => (h = await startHubHarness()));
    afterAll(async () => h?.close());

    async function countEvents(): Promise<number> {
      return (await h.store.approximateEventCount()) ?? 0;
    }

    async function register(
      overrides: Record<string, unknown> = {},
    ): Promise<{ nodeId: string; credential: string; commandKey: string }> {
      const response = await h.request('POST', '/v1/agents/register', registrationBody(overrides));
      expect(response.status).toBe(200);
      return response.body;
    }

    describe('registration', () => {
      beforeEach(async () => (eventsBefore = await countEvents()));

      it('refuses missing and wrong fields with 400 and a dotted code per field, writing nothing', async () => {
        const response = await h.request('POST', '/v1/agents/register', {
          joinToken: 'x',
          cpuCores: -1,
          domainId: 'Bad Domain',
        });
        expect(response.status).toBe(400);
        expect(response.body.code).toBe('REGISTER');
        const fields = response.body.details.issues.map(
          (i: { path: string; code: string }) => `${i.path}:${i.code}`,
        );
        expect(fields).toEqual(
          expect.arrayContaining([
            'hostname:REGISTER.INVALID_TYPE',
            'cpuCores:REGISTER.TOO_SMALL',
            'domainId:REGISTER.INVALID_FORMAT',
          ]),
        );
        expect(await countEvents()).toBe(eventsBefore);
      });

      it('refuses malformed JSON with 400, not 500', async () => {
        const response = await h.request('POST', '/v1/agents/register', '{"joinToken": ', {
          'content-type': 'application/json',
        });
        expect(response.status).toBe(400);
        expect(response.body.code).toBe('REQUEST.MALFORMED');
      });

      it('refuses a wrong join token with 401, writing nothing', async () => {
        const response = await h.request(
          'POST',
          '/v1/agents/register',
          registrationBody({ joinToken: 'wrong-token' }),
        );
        expect(response.status).toBe(401);
        expect(response.body.code).toBe('AUTH.INVALID_JOIN_TOKEN');
        expect(await countEvents()).toBe(eventsBefore);
      });

      it('registers once per node id: a repeat with its credential returns the same identity and appends nothing', async () => {
        const first = await register({ hostname: 'idem' });
        const response = await h.request(
          'POST',
          '/v1/agents/register',
          registrationBody({ hostname: 'idem', nodeId: first.nodeId }),
          { authorization: `Bearer ${first.credential}` },
        );
        expect(response.status).toBe(200);
        const again = response.body;
        expect(again.nodeId).toBe(first.nodeId);
        expect(again.credential).toBe(first.credential);
        const events = await h.store.readStream(nodeStream(first.nodeId));
        expect(events.map((e) => e.type)).toEqual(['NodeRegistered']);
        expect(await h.store.getStreamMetadata(heartbeatStream(first.nodeId))).toEqual({
          maxAge: h.config.heartbeatRetentionSeconds,
        });
        const me = await h.request('GET', '/v1/agents/me', undefined, {
          authorization: `Bearer ${first.credential}`,
        });
        expect({ status: me.status, body: me.body }).toEqual({
          status: 200,
          // with the cadence to keep (the harness's fixed 0.5 s interval and 2 s TTL)
          body: { nodeId: first.nodeId, status: 'online', heartbeatIntervalSeconds: 0.5, nodeTtlSeconds: 2 },
        });
      });
      it("never hands out a registered node's credential for the join token alone", async () => {
        const victim = await register({ hostname: 'victim' });
        const other = await register({ hostname: 'other' });
        const before = await countEvents();
        const attempts: Record<string, string>[] = [
          { authorization: '' },
          { authorization: `Bearer ${other.credential}` },
          { authorization: 'Bearer test-admin-token-0123456789' },
          { authorization: `Bearer reenrol.${victim.nodeId}.99999999999.forged` },
        ];
        for (const headers of attempts) {
          const response = await h.request(
            'POST',
            '/v1/agents/register',
            registrationBody({ hostname: 'attacker', nodeId: victim.nodeId }),
            headers,
          );
          expect([response.status, response.body.code]).toEqual([401, 'AUTH.NODE_CREDENTIAL_REQUIRED']);
          expect(JSON.stringify(response.body)).not.toContain(victim.credential);
        }
        expect(await countEvents()).toBe(before);
        // a new node with an id of its own choosing still registers with the join token alone
        const fresh = await register({ hostname: 'fresh', nodeId: randomUUID() });
        expect(fresh.credential).toMatch(new RegExp(`^${fresh.nodeId}\\.`));
      });

      it("registers a known node again with an admin's re-enrolment token (the agent lost its credential)", async () => {
        const node = await register({ hostname: 'lost-credential' });
        const issued = await h.request('POST', `/v1/nodes/${node.nodeId}/reenrolment-token`, {
          ttlSeconds: 600,
        });
        expect(issued.status).toBe(200);
        expect(Date.parse(issued.body.expiresAt)).toBeGreaterThan(Date.now() + 590_000);
        const again = await h.request(
          'POST',
          '/v1/agents/register',
          registrationBody({ hostname: 'lost-credential', nodeId: node.nodeId }),
          { authorization: `Bearer ${issued.body.token}` },
        );
        expect([again.status, again.body.credential]).toEqual([200, node.credential]);
        const elsewhere = await register({ hostname: 'someone-else' });
        const misused = await h.request(
          'POST',
          '/v1/agents/register',
          registrationBody({ nodeId: elsewhere.nodeId }),
          { authorization: `Bearer ${issued.body.token}` },
        );
        expect(misused.status).toBe(401);
        const unknown = await h.request('POST', `/v1/nodes/${randomUUID()}/reenrolment-token`, {});
        expect(unknown.status).toBe(404);
        const byViewer = await h.request(
          'POST',
          `/v1/nodes/${node.nodeId}/reenrolment-token`,
          {},
          {
            authorization: `Bearer ${node.credential}`,
          },
        );
        expect(byViewer.status).toBe(401);
      });
    });

    describe('reports', () => {
      it('appends heartbeats, updates node_state and domain_summary, and drops replays by (node, seq)', async () => {
        const node = await register({ hostname: 'hb-node', domainId: 'site-hb' });
        const reports = [1, 2, 2, 3].map((seq) =>
          heartbeat(node.nodeId, node.commandKey, seq, { domainId: 'site-hb' }),
        );
        await h.bus.publish(
          AGENT_REPORTS_TOPIC,
          reports.map((r) => ({ key: node.nodeId, value: JSON.stringify(r) })),
        );
        await eventually(
          'three heartbeats appended',
          async () => (await h.store.readStream(heartbeatStream(node.nodeId))).length === 3,
        );
        await eventually(
          'usage projected',
          async () => (await h.request('GET', `/v1/nodes/${node.nodeId}`)).body.usage?.cpuUsage === 0.25,
        );
        const domains = await h.request('GET', '/v1/domains');
        const site = domains.body.items.find((d: { domainId: string }) => d.domainId === 'site-hb');
        expect(site.nodes).toEqual({ online: 1, offline: 0, draining: 0 });
        expect(site.capacity.cpuCores).toEqual({ total: 8, available: 6 });
        expect(site.resourceTags).toEqual(['arch=x64', 'os=linux', 'rack=r1']);
      });

      it("measures ingest lag from the broker's append times, not from an agent's clock", async () => {
        const node = await register({ hostname: 'skewed-clock' });
        const hourAgo = new Date(Date.now() - 3600_000).toISOString();
        await h.bus.publish(AGENT_REPORTS_TOPIC, [
          {
            key: node.nodeId,
            value: JSON.stringify(heartbeat(node.nodeId, node.commandKey, 1, { sentAt: hourAgo })),
          },
        ]);
        await eventually(
          'appended',
          async () => (await h.store.readStream(heartbeatStream(node.nodeId))).length === 1,
        );
        const metrics = (await h.request('GET', '/metrics')).body as string;
        const lag = Number(/^hcn_report_ingest_lag_seconds (\S+)$/m.exec(metrics)?.[1]);
        expect(lag).toBeGreaterThanOrEqual(0);
        expect(lag).toBeLessThan(60); // an hour with the report's own time
      });

      it("dead-letters malformed reports and reports signed with another node's key or changed after signing, counting them, appending nothing", async () => {
        const victim = await register({ hostname: 'victim' });
        const attacker = await register({ hostname: 'attacker' });
        const dead: IncomingMessage[] = [];
        const dlq = await h.bus.consume({
          groupId: `dlq-${randomUUID()}`,
          topics: [`${AGENT_REPORTS_TOPIC}.dlq`],
          fromBeginning: true,
          handleBatch: async (m) => void dead.push(...m),
        });
        const forged = heartbeat(victim.nodeId, attacker.commandKey, 1);
        const tampered = { ...heartbeat(victim.nodeId, victim.commandKey, 2), seq: 3 }; // changed after signing
        await h.bus.publish(AGENT_REPORTS_TOPIC, [
          { key: victim.nodeId, value: JSON.stringify(forged) },
          { key: victim.nodeId, value: JSON.stringify(tampered) },
          { key: 'x', value: 'not json' },
          { key: 'y', value: JSON.stringify({ kind: 'heartbeat', nodeId: 'nope' }) },
        ]);
        await eventually('four dead letters', () => dead.length >= 4);
        await dlq.stop();
        const codes = dead.map((m) => m.headers[DLQ_HEADERS.code]).sort();
        expect(codes).toEqual([
          'AUTH.INVALID_REPORT_MAC',
          'AUTH.INVALID_REPORT_MAC',
          'REPORT.MALFORMED_JSON',
          'REPORT.SCHEMA_INVALID',
        ]);
        expect(await h.store.readStream(heartbeatStream(victim.nodeId))).toEqual([]);
        const metrics = (await h.request('GET', '/metrics')).body as string;
        expect(metrics).toMatch(/hcn_agent_reports_rejected_total\{reason="AUTH.INVALID_REPORT_MAC"\} [2-9]/);
      });
    });

    describe('liveness', () => {
      it('marks a silent node offline after the TTL and online again on its next heartbeat', async () => {
        const node = await register({ hostname: 'silent' });
        await eventually(
          'offline',
          async () => (await h.request('GET', `/v1/nodes/${node.nodeId}`)).body.status === 'offline',
          8000,
        );
        const types = (await h.store.readStream(nodeStream(node.nodeId))).map((e) => e.type);
        expect(types).toEqual(['NodeRegistered', 'NodeWentOffline']);
        const first = JSON.stringify(heartbeat(node.nodeId, node.commandKey, 1));
        await h.bus.publish(AGENT_REPORTS_TOPIC, [{ key: node.nodeId, value: first }]);
        await eventually(
          'online again',
          async () => (await h.request('GET', `/v1/nodes/${node.nodeId}`)).body.status === 'online',
          8000,
        );
        expect((await h.store.readStream(nodeStream(node.nodeId))).map((e) => e.type)).toContain(
          'NodeCameOnline',
        );
        // silent again: offline; the same (validly signed) heartbeat replayed brings nothing back
        await eventually(
          'offline again',
          async () => (await h.request('GET', `/v1/nodes/${node.nodeId}`)).body.status === 'offline',
          8000,
        );
        await h.bus.publish(AGENT_REPORTS_TOPIC, [{ key: node.nodeId, value: first }]);
        await new Promise((r) => setTimeout(r, 1500));
        expect((await h.request('GET', `/v1/nodes/${node.nodeId}`)).body.status).toBe('offline');
        const cameOnline = async () =>
          (await h.store.readStream(nodeStream(node.nodeId))).filter((e) => e.type === 'NodeCameOnline')
            .length;
        expect(await cameOnline()).toBe(1);
        await h.bus.publish(AGENT_REPORTS_TOPIC, [
          { key: node.nodeId, value: JSON.stringify(heartbeat(node.nodeId, node.commandKey, 2)) },
        ]);
        await eventually('a new heartbeat does', async () => (await cameOnline()) === 2, 8000);
      });
    });

    describe('operator commands and dispatch', () => {
      it('drains, stops and relabels a node; drain and stop are relayed to the domain command topic', async () => {
        const node = await register({ hostname: 'ops', domainId: 'site-ops' });
        const received: IncomingMessage[] = [];
        const agent = await h.bus.consume({
          groupId: `agent-${node.nodeId}`,
          topics: [commandTopicFor('site-ops')],
          fromBeginning: true,
          handleBatch: async (m) => void received.push(...m),
        });
        expect(
          (await h.request('POST', `/v1/nodes/${node.nodeId}/drain`, { reason: 'maintenance' })).status,
        ).toBe(202);
        expect((await h.request('POST', `/v1/nodes/${node.nodeId}/stop`, {})).status).toBe(202);
        const relabel = await h.request('PUT', `/v1/nodes/${node.nodeId}/labels`, {
          labels: { rack: 'r9', gpu: 'a100' },
        });
        expect(relabel.body.events).toEqual(['NodeLabelsChanged']);
        await eventually('two commands relayed', () => received.length >= 2);
        await agent.stop();
        const commands = received.map((m) => JSON.parse(m.value.toString()));
        expect(commands.map((c) => c.kind)).toEqual(['drain', 'stop']);
        const stored = await h.store.readStream(nodeStream(node.nodeId));
        expect(commands.map((c) => c.commandId)).toEqual(
          stored
            .filter((e) => e.type === 'NodeDrainRequested' || e.type === 'NodeStopRequested')
            .map((e) => e.eventId),
        );
        await eventually(
          'labels projected',
          async () => (await h.request('GET', `/v1/nodes?label=gpu=a100`)).body.total === 1,
        );
      });

      it('answers unknown nodes with 404 and bad ids or bodies with 400, writing nothing', async () => {
        const before = await countEvents();
        const unknown = randomUUID();
        expect((await h.request('POST', `/v1/nodes/${unknown}/drain`, {})).body.code).toBe('NODE.NOT_FOUND');
        expect((await h.request('POST', `/v1/nodes/${unknown}/drain`, {})).status).toBe(404);
        expect((await h.request('POST', '/v1/nodes/not-a-uuid/stop', {})).status).toBe(400);
        expect(
          (await h.request('PUT', `/v1/nodes/${unknown}/labels`, { labels: { 'bad key!': 'x' } })).status,
        ).toBe(400);
        expect((await h.request('GET', `/v1/nodes/${unknown}`)).status).toBe(404);
        expect((await h.request('GET', '/v1/nodes?limit=5000')).status).toBe(400);
        expect(await countEvents()).toBe(before);
      });
    });

    describe('queries and operations endpoints', () => {
      it('filters, sorts and paginates nodes', async () => {
        for (const i of [1, 2, 3]) await register({ hostname: `page-${i}`, domainId: 'site-page' });
        await eventually(
          'projected',
          async () => (await h.request('GET', '/v1/nodes?domain=site-page')).body.total === 3,
        );
        const first = await h.request('GET', '/v1/nodes?domain=site-page&sort=hostname&order=desc&limit=2');
        expect(first.body.items.map((n: { hostname: string }) => n.hostname)).toEqual(['page-3', 'page-2']);
        const next = await h.request(
          'GET',
          `/v1/nodes?domain=site-page&sort=hostname&order=desc&limit=2&cursor=${first.body.nextCursor}`,
        );
        expect(next.body.items.map((n: { hostname: string }) => n.hostname)).toEqual(['page-1']);
        expect([first.body.total, next.body.nextCursor]).toEqual([3, null]);
      });

      it('serves health, readiness, Prometheus metrics and OpenAPI docs', async () => {
        const health = await h.request('GET', '/healthz');
        expect([health.status, health.body]).toEqual([200, { status: 'ok' }]);
        expect((await h.request('GET', '/readyz')).body.status).toBe('ready');
        expect((await h.request('GET', '/metrics')).body).toContain('hcn_heartbeats_appended_total');
        const openApi = await h.request('GET', '/docs/openapi.json');
        expect(Object.keys(openApi.body.paths)).toEqual(
          expect.arrayContaining(['/v1/agents/register', '/v1/nodes', '/v1/domains']),
        );
      });
    });
  },
);
