import { workloadStream } from '@hcn/contracts';
import { PostgresEventStore } from '@hcn/eventstore';
import { freePort } from '@hcn/platform';
import {
  AppProcess,
  TestDatabase,
  createTestDatabase,
  describeWithKafka,
  describeWithPostgres,
  eventually,
  eventuallyExpect,
  testKafkaBrokers,
} from '@hcn/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { Server, createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_ADMIN_TOKEN, TEST_JOIN_TOKEN, processSpec } from '../../apps/hub/src/testing/hub-harness';

/** A span as the collector received it (OTLP/HTTP JSON: ids in hex). */
interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: Record<string, unknown>;
}

type OtlpValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean };
type OtlpAttribute = { key: string; value: OtlpValue };
type OtlpTraces = {
  resourceSpans?: Array<{
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: Array<{
      spans?: Array<Omit<ReceivedSpan, 'service' | 'attributes'> & { attributes?: OtlpAttribute[] }>;
    }>;
  }>;
};

const attributes = (list: OtlpAttribute[] = []): Record<string, unknown> =>
  Object.fromEntries(list.map((a) => [a.key, a.value.stringValue ?? a.value.intValue ?? a.value.boolValue]));

/** A tiny OTLP/HTTP collector on loopback: keeps every span POSTed to /v1/traces as JSON. */
async function startCollector(): Promise<{ url: string; spans: ReceivedSpan[]; server: Server }> {
  const spans: ReceivedSpan[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') return void res.writeHead(404).end();
      const traces = JSON.parse(body) as OtlpTraces;
      for (const resource of traces.resourceSpans ?? []) {
        const service = String(attributes(resource.resource?.attributes)['service.name']);
        for (const scope of resource.scopeSpans ?? [])
          for (const span of scope.spans ?? [])
            spans.push({ ...span, service, attributes: attributes(span.attributes) });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, spans, server };
}

/**
 * One trace from the REST request to the agent, over a real Kafka broker: a hub process and an agent process
 * both export to a collector in the spec; the agent's span of the run command has the trace id of the
 * request's server span, the placement's event keeps its traceparent, and the agent's log line carries the trace id.
 */
describeWithPostgres('tracing across REST, command, event, Kafka and the agent (OTLP/HTTP)', () => {
  describeWithKafka('with the suite broker', () => {
    let collector: Awaited<ReturnType<typeof startCollector>>;
    let db: TestDatabase;
    let store: PostgresEventStore;
    let hub: AppProcess | undefined;
    let agent: AppProcess | undefined;
    let dataDir: string;
    let url: string;

    beforeAll(async () => {
      collector = await startCollector();
      const tracing = { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_BSP_SCHEDULE_DELAY: '200' };
      db = await createTestDatabase('tracing');
      store = await PostgresEventStore.connect({ connectionString: db.url });
      dataDir = mkdtempSync(join(tmpdir(), 'hcn-tracing-'));
      const port = await freePort();
      url = `http://127.0.0.1:${port}`;
      hub = new AppProcess('traced-hub', 'apps/hub/src/main.ts', {
        ...tracing,
        DATABASE_URL: db.url,
        KAFKA_BROKERS: testKafkaBrokers().join(','),
        HCN_HTTP_PORT: String(port),
        HCN_JOIN_TOKEN: TEST_JOIN_TOKEN,
        HCN_AGENT_SECRET: 'tracing-agent-secret-0123456789-0123456789',
        HCN_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
        HCN_NODE_TTL_SECONDS: '600',
      }).start();
      await eventually(
        'hub ready',
        async () => (await fetch(`${url}/readyz`).catch(() => undefined))?.status === 200,
        120_000,
      );
      agent = new AppProcess('traced-agent', 'apps/agent/src/main.ts', {
        ...tracing,
        HCN_HUB_URL: url,
        HCN_JOIN_TOKEN: TEST_JOIN_TOKEN,
        HCN_DOMAIN: 'traced',
        HCN_DATA_DIR: dataDir,
        HCN_PROCESS_USER: 'none',
        KAFKA_BROKERS: testKafkaBrokers().join(','),
      }).start();
      await eventuallyExpect(() => expect(agent!.output).toMatch(/node \S+ running/), 90_000);
    }, 240_000);

    afterAll(async () => {
      await agent?.kill();
      await hub?.kill();
      await store?.close();
      await db?.drop();
      collector?.server.close();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    });

    it("the agent's span of the run command is in the trace of the REST request that submitted the workload", async () => {
      const submitted = await fetch(`${url}/v1/workloads`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${TEST_ADMIN_TOKEN}`,
          'content-type': 'application/json',
          'x-request-id': 'traced-submit',
        },
        body: JSON.stringify(processSpec({ name: 'traced' })),
      });
      expect(submitted.status).toBe(201);
      const workloadId = ((await submitted.json()) as { workloadId: string }).workloadId;

      await eventually(
        'the agent span and the request span',
        async () =>
          collector.spans.some((s) => s.service === 'hcn-agent' && s.name === 'agent run') &&
          collector.spans.some((s) => s.attributes['hcn.request_id'] === 'traced-submit'),
        60_000,
      ).catch((error: Error) => {
        const seen = collector.spans.map((s) => `${s.service} ${s.name} ${s.traceId}`);
        throw new Error(`${error.message}; spans: ${seen.join(', ')}`);
      });
      const request = collector.spans.find((s) => s.attributes['hcn.request_id'] === 'traced-submit')!;
      expect(request).toMatchObject({ service: 'hcn-hub', name: 'POST /v1/workloads' });
      expect(request.parentSpanId ?? '').toBe(''); // the caller sent no traceparent: a new trace
      const command = collector.spans.find(
        (s) => s.traceId === request.traceId && s.name.startsWith('command '),
      );
      expect(command?.parentSpanId).toBe(request.spanId);
      const run = collector.spans.find((s) => s.service === 'hcn-agent' && s.name === 'agent run')!;
      expect(run.traceId).toBe(request.traceId);

      const placed = (await store.readStream(workloadStream(workloadId))).find(
        (e) => e.type === 'AllocationPlaced',
      )!;
      expect(placed.metadata.traceparent).toMatch(new RegExp(`^00-${request.traceId}-[0-9a-f]{16}-01$`));
      expect(placed.metadata.causationId).toBe('traced-submit');

      const runLine = agent!.output
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => String(l.msg).includes('running allocation'));
      expect(runLine).toMatchObject({ app: 'agent', trace_id: request.traceId, span_id: run.spanId });
    }, 120_000);
  });
});
