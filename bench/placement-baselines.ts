import { MessageBus } from '@hcn/messaging';
import { send } from '../apps/agent/src/hub-client';
import { percentile } from './support';

/**
 * Baselines measured in the same run as the placement figures: the hub's cheapest HTTP request (GET /healthz) at
 * the same client concurrency and with the same HTTP client as the submissions, and a bare Kafka produce → consume round trip on the same broker.
 */
export async function latencyBaselines(hubUrl: string, bus: MessageBus, concurrency: number) {
  let requests = 0;
  const until = Date.now() + 5000;
  const healthz = new URL(`${hubUrl}/healthz`);
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < until) {
        await send(healthz, 'GET', undefined, undefined);
        requests++;
      }
    }),
  );
  const topic = 'bench.roundtrip';
  await bus.createTopics([{ name: topic }]);
  const sent = new Map<string, number>();
  const trips: number[] = [];
  const consumer = await bus.consume({
    groupId: 'bench-roundtrip',
    topics: [topic],
    fromBeginning: false,
    batchWindowMs: 5,
    handleBatch: async (messages) => {
      const now = Date.now();
      for (const m of messages) trips.push(now - (sent.get(m.value.toString()) ?? now));
    },
  });
  await new Promise((r) => setTimeout(r, 2000));
  for (let i = 0; i < 300; i++) {
    sent.set(String(i), Date.now());
    await bus.publish(topic, [{ key: String(i), value: String(i) }]);
    await new Promise((r) => setTimeout(r, 10));
  }
  await new Promise((r) => setTimeout(r, 1000));
  await consumer.stop();
  const sorted = trips.sort((a, b) => a - b);
  return {
    healthz: { clients: concurrency, requestsPerSec: Math.round(requests / 5) },
    kafkaRoundTrip: { samples: sorted.length, p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99) },
  };
}
