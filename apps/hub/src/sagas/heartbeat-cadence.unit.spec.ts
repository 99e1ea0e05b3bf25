import { HeartbeatCadence, heartbeatCadence } from './heartbeat-cadence';

const settings = { heartbeatIntervalSeconds: 5, nodeTtlSeconds: 15, heartbeatsMaxPerSecond: 50 };

describe('heartbeat cadence scaled to the fleet', () => {
  it.each([
    // nodes, max per second, interval, TTL
    [0, 50, 5, 15],
    [1, 50, 5, 15],
    [250, 50, 5, 15], // 50 heartbeats/s at the configured interval: no scaling yet
    [251, 50, 6, 18], // whole seconds, rounded up so the rate stays under the cap
    [1000, 50, 20, 60],
    [10_000, 50, 200, 600],
    [1000, 200, 5, 15],
    [1000, 0, 5, 15], // 0: a fixed interval whatever the size
    [100_000, 0, 5, 15],
  ])('%i nodes at most %i/s: every %i s, TTL %i s', (nodes, max, interval, ttl) => {
    expect(heartbeatCadence(nodes, { ...settings, heartbeatsMaxPerSecond: max })).toEqual({
      intervalSeconds: interval,
      ttlSeconds: ttl,
    });
  });

  it('keeps a fractional configured interval and TTL for a small fleet', () => {
    const small = { heartbeatIntervalSeconds: 0.5, nodeTtlSeconds: 2, heartbeatsMaxPerSecond: 4 };
    expect(heartbeatCadence(2, small)).toEqual({ intervalSeconds: 0.5, ttlSeconds: 2 });
    expect(heartbeatCadence(10, small)).toEqual({ intervalSeconds: 3, ttlSeconds: 12 });
  });

  it('keeps the fleet at or under its rate', () => {
    for (const nodes of [1, 99, 250, 251, 777, 1000, 4321, 50_000]) {
      const { intervalSeconds } = heartbeatCadence(nodes, settings);
      expect(nodes / intervalSeconds).toBeLessThanOrEqual(Math.max(50, nodes / 5));
      if (nodes > 250) expect(nodes / intervalSeconds).toBeLessThanOrEqual(50);
    }
  });
});

describe('HeartbeatCadence', () => {
  let now = 0;
  const clock = () => new Date(now);

  beforeEach(() => (now = 1_000_000));

  it('tells a longer interval and judges by a longer TTL as the fleet grows', () => {
    const cadence = new HeartbeatCadence(settings, clock);
    cadence.observe(100);
    expect(cadence.current()).toEqual({ intervalSeconds: 5, ttlSeconds: 15 });
    expect(cadence.ttlMs()).toBe(15_000);
    cadence.observe(1000);
    expect(cadence.current()).toEqual({ intervalSeconds: 20, ttlSeconds: 60 });
    expect(cadence.ttlMs()).toBe(60_000);
  });

  it('after a shrink tells the shorter interval at once but keeps the longer TTL until agents checked in', () => {
    const cadence = new HeartbeatCadence(settings, clock);
    cadence.observe(1000);
    cadence.observe(100);
    expect(cadence.current()).toEqual({ intervalSeconds: 5, ttlSeconds: 15 });
    expect(cadence.ttlMs()).toBe(60_000);
    // held for 4 long intervals (three heartbeats to the identity check, one spare) plus one long TTL
    now += (4 * 20 + 60) * 1000 - 1;
    expect(cadence.ttlMs()).toBe(60_000);
    now += 1;
    expect(cadence.ttlMs()).toBe(15_000);
  });

  it('keeps the longest held TTL over shrinks in a row', () => {
    const cadence = new HeartbeatCadence(settings, clock);
    cadence.observe(1000);
    cadence.observe(500);
    now += 10_000;
    cadence.observe(100);
    expect(cadence.ttlMs()).toBe(60_000);
    now += 129_999; // the first shrink's hold (4 x 20 s + 60 s) outlasts the second's (4 x 10 s + 30 s)
    expect(cadence.ttlMs()).toBe(60_000);
    now += 1;
    expect(cadence.ttlMs()).toBe(15_000);
  });

  it('never scales with heartbeatsMaxPerSecond 0', () => {
    const cadence = new HeartbeatCadence({ ...settings, heartbeatsMaxPerSecond: 0 }, clock);
    cadence.observe(100_000);
    expect(cadence.current()).toEqual({ intervalSeconds: 5, ttlSeconds: 15 });
    expect(cadence.ttlMs()).toBe(15_000);
  });
});
