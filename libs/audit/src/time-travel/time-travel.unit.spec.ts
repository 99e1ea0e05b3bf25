import { LogBuilder } from '../testing/recorded';
import { parseInstant } from './instant';
import { NodesAt } from './nodes-at';
import { domainAsOf, nodeAsOf, quotaAsOf } from './time-travel';

const N = '33333333-3333-4333-8333-333333333333';
const W = '11111111-1111-4111-8111-111111111111';
const h = (hour: number) => new Date(Date.UTC(2026, 10, 1, hour)).toISOString();
const ms = (hour: number) => Date.parse(h(hour));

describe('time travel', () => {
  const log = new LogBuilder();
  const registration = {
    nodeId: N,
    domainId: 'site',
    labels: {},
    cpuCores: 4,
    memoryBytes: 8,
    accelerators: 0,
  };
  log.add(`node-${N}`, 'NodeRegistered', registration, h(1));
  log.add(`node-${N}`, 'NodeDrainRequested', { nodeId: N, reason: 'x' }, h(3));
  log.add(`node-${N}`, 'NodeWentOffline', { nodeId: N, lastSeenAt: null, ttlSeconds: 15 }, h(5));
  log.add('domain-site', 'DomainDefined', { domainId: 'site', parentId: null, region: 'eu' }, h(1));
  log.add('domain-site', 'DomainUpdated', { domainId: 'site', parentId: null, region: 'us' }, h(4));
  const held = { cpuMillis: 3000, memoryBytes: 1, accelerators: 0 };
  log.add('quota-a', 'QuotaSet', { namespace: 'a', limits: { cpuMillis: 4000 } }, h(1));
  log.add('quota-a', 'QuotaConsumed', { namespace: 'a', workloadId: W, resources: held }, h(2));
  log.add('quota-a', 'QuotaSet', { namespace: 'a', limits: { cpuMillis: 1000 } }, h(6));

  it.each([
    [0, 'unregistered', false],
    [2, 'online', false],
    [4, 'online', true],
    [6, 'offline', true],
  ])('a node at %i h is %s (draining %s)', (hour, status, draining) => {
    expect(nodeAsOf(N, log.stream(`node-${N}`), ms(hour))).toMatchObject({ status, draining });
  });

  it.each([
    [0, null],
    [2, 'eu'],
    [4, 'us'],
  ])('a domain at %i h has region %s', (hour, region) => {
    const domain = domainAsOf('site', log.stream('domain-site'), new NodesAt(ms(hour)));
    expect(domain.definition?.region ?? null).toBe(region);
  });

  it.each([
    [1, 0, []],
    [3, 3000, []],
    [7, 3000, ['cpuMillis: 3000 > limit 1000']],
  ])('a quota at %i h uses %i millicores, over %j', (hour, cpu, over) => {
    const q = quotaAsOf('a', log.stream('quota-a'), ms(hour));
    expect([q.used.cpuMillis, q.overLimits]).toEqual([cpu, over]);
  });

  it.each(['yesterday', '2026-11-01', '2026-11-01T00:00:00', 42])('refuses the instant %j', (text) => {
    expect(() => parseInstant(text)).toThrow(expect.objectContaining({ code: 'AUDIT.INSTANT_INVALID' }));
  });
});
