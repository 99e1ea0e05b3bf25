import { describeWithRedis, eventuallyExpect, testRedisUrl } from '@hcn/testing';
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { createServer, Server, Socket } from 'node:net';
import { RedisQueueMeter } from './redis-queue-meter';
import { queueMeterContract } from './testing/queue-meter.contract';

describeWithRedis('RedisQueueMeter (real redis-server)', () => {
  queueMeterContract(async () => {
    const url = testRedisUrl();
    const admin = new Redis(url);
    // a short connect timeout: ioredis leaves a refused socket's connect timer running that long
    const meter = new RedisQueueMeter({ connectTimeoutMs: 500 });
    return {
      meter,
      url,
      push: async (key, items) => void (await admin.rpush(key, ...items)),
      setString: async (key, value) => void (await admin.set(key, value)),
      teardown: async () => {
        await meter.close();
        await admin.quit();
      },
    };
  });

  it('reports refused credentials as REDIS.AUTH_FAILED and never shows the password', async () => {
    const admin = new Redis(testRedisUrl());
    const user = `meter-${randomUUID().slice(0, 8)}`;
    const meter = new RedisQueueMeter();
    try {
      await admin.acl('SETUSER', user, 'on', '>right-password', '~*', '+@all');
      const base = new URL(testRedisUrl());
      const good = `redis://${user}:right-password@${base.host}`;
      const bad = `redis://${user}:wrong-password@${base.host}`;
      const q = `${user}:q`;
      await admin.rpush(q, 'a', 'b');
      await expect(meter.lengths(good, [q])).resolves.toEqual({ [q]: 2 });
      const error = await meter.lengths(bad, [q]).then(
        () => undefined,
        (e: unknown) => e as Error & { code: string; details: unknown },
      );
      expect(error?.code).toBe('REDIS.AUTH_FAILED');
      expect(JSON.stringify(error?.details) + error?.message).not.toContain('wrong-password');
    } finally {
      await meter.close();
      await admin.acl('DELUSER', user);
      await admin.quit();
    }
  });

  it('times out on a server that accepts but never answers (REDIS.UNREACHABLE)', async () => {
    const sockets: Socket[] = [];
    const silent: Server = createServer((s) => void sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
    const port = (silent.address() as { port: number }).port;
    const meter = new RedisQueueMeter({ connectTimeoutMs: 300, commandTimeoutMs: 300 });
    try {
      const started = Date.now();
      await expect(meter.lengths(`redis://127.0.0.1:${port}`, ['q'])).rejects.toMatchObject({
        code: 'REDIS.UNREACHABLE',
      });
      expect(Date.now() - started).toBeLessThan(3000);
    } finally {
      await meter.close();
      sockets.forEach((s) => s.destroy());
      await new Promise((r) => silent.close(r));
    }
  });

  /** Databases of the meter connections open on the test server (they name themselves hcn-queue-meter). */
  async function meterDatabases(admin: Redis, among: number[]): Promise<number[]> {
    const lines = String(await admin.client('LIST')).split('\n');
    return lines
      .filter((l) => l.includes('name=hcn-queue-meter '))
      .map((l) => Number(/ db=(\d+) /.exec(l)?.[1]))
      .filter((db) => among.includes(db))
      .sort((a, b) => a - b);
  }

  it('keeps at most maxConnections open, closing the least recently used', async () => {
    const meter = new RedisQueueMeter({ maxConnections: 2 });
    const url = testRedisUrl().replace(/\/\d*$/, '');
    const admin = new Redis(url);
    try {
      for (const db of [11, 12, 13, 11]) await meter.lengths(`${url}/${db}`, ['q']);
      await eventuallyExpect(async () => expect(await meterDatabases(admin, [11, 12, 13])).toEqual([11, 13]));
      await meter.close();
      await eventuallyExpect(async () => expect(await meterDatabases(admin, [11, 12, 13])).toEqual([]));
    } finally {
      await meter.close();
      await admin.quit();
    }
  });

  it('recovers after the server dropped its connection', async () => {
    const url = `${testRedisUrl().replace(/\/\d*$/, '')}/14`;
    const admin = new Redis(url);
    const meter = new RedisQueueMeter();
    const q = `meter-${randomUUID().slice(0, 8)}:q`;
    try {
      await admin.rpush(q, 'a');
      await expect(meter.lengths(url, [q])).resolves.toEqual({ [q]: 1 });
      const lines = String(await admin.client('LIST')).split('\n');
      const ids = lines.filter((l) => l.includes('name=hcn-queue-meter ') && l.includes(' db=14 '));
      expect(ids).toHaveLength(1);
      await admin.client('KILL', 'ID', /id=(\d+)/.exec(ids[0])![1]);
      // the call that meets the dead connection may fail (REDIS.UNREACHABLE); the next opens a new one
      const first = await meter.lengths(url, [q]).catch((e: { code: string }) => e.code);
      expect([{ [q]: 1 }, 'REDIS.UNREACHABLE']).toContainEqual(first);
      await expect(meter.lengths(url, [q])).resolves.toEqual({ [q]: 1 });
    } finally {
      await meter.close();
      await admin.quit();
    }
  });
});
