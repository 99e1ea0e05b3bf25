import { LogBuilder } from '../testing/recorded';
import { NodesAt } from './nodes-at';
import { domainAsOf } from './time-travel';

const A = '0000000a-0000-4000-8000-000000000000';
const B = '0000000b-0000-4000-8000-000000000000';
const C = '0000000c-0000-4000-8000-000000000000';
const W = '11111111-1111-4111-8111-111111111111';
const ALLOC = '22222222-2222-4222-8222-222222222222';
const h = (hour: number) => new Date(Date.UTC(2026, 10, 1, hour)).toISOString();
const ms = (hour: number) => Date.parse(h(hour));

const registration = (nodeId: string, domainId: string, cpuCores: number) => ({
  nodeId,
  domainId,
  hostname: `host-${nodeId[7]}`,
  labels: {},
  cpuCores,
  memoryBytes: 1000,
  accelerators: 0,
});
const reserved = { cpuMillis: 1500, memoryBytes: 100, accelerators: 0 };

/** The log: A, B and C join `site` one after the other, then they drain, go offline, leave and move away. */
function siteLog(): LogBuilder {
  const log = new LogBuilder();
  log.add('domain-site', 'DomainDefined', { domainId: 'site', parentId: null, region: 'eu' }, h(1));
  log.add(`node-${A}`, 'NodeRegistered', registration(A, 'site', 4), h(2));
  log.add(`node-${B}`, 'NodeRegistered', registration(B, 'site', 8), h(3));
  log.add(`heartbeat-${A}`, 'NodeHeartbeatRecorded', { nodeId: A }, h(3));
  log.add(
    `node-${A}`,
    'CapacityReserved',
    { nodeId: A, allocationId: ALLOC, workloadId: W, resources: reserved },
    h(4),
  );
  log.add(`node-${B}`, 'NodeDrainRequested', { nodeId: B, reason: 'maintenance' }, h(5));
  log.add(`node-${C}`, 'NodeRegistered', registration(C, 'other', 2), h(5));
  log.add(`node-${A}`, 'NodeWentOffline', { nodeId: A, lastSeenAt: null, ttlSeconds: 15 }, h(6));
  log.add(`node-${C}`, 'NodeReregistered', registration(C, 'site', 2), h(7));
  log.add(`node-${A}`, 'CapacityReleased', { nodeId: A, allocationId: ALLOC, reason: 'done' }, h(8));
  log.add(`node-${A}`, 'NodeCameOnline', { nodeId: A, seenAt: h(8) }, h(8));
  log.add(`node-${B}`, 'NodeDeregistered', { nodeId: B, reason: 'retired' }, h(9));
  log.add(`node-${C}`, 'NodeReregistered', registration(C, 'other', 2), h(10));
  return log;
}

/** Folds the whole log (in log order) as of `hour` and answers for `site`. */
function siteAt(hour: number) {
  const log = siteLog();
  const nodes = new NodesAt(ms(hour));
  for (const event of log.events) nodes.accept(event);
  return { nodes, domain: domainAsOf('site', log.stream('domain-site'), nodes) };
}

const statuses = (hour: number) => siteAt(hour).domain.members.map((m) => [m.hostname, m.status, m.draining]);

describe('domain time travel: members replayed from the node streams', () => {
  it('given only the definition, then the domain has no members and no capacity', () => {
    expect(siteAt(1).domain).toMatchObject({
      definition: { region: 'eu' },
      members: [],
      nodes: { online: 0, offline: 0, draining: 0 },
      capacity: { cpuMillis: 0, memoryBytes: 0, accelerators: 0 },
    });
  });

  it('given two registrations and a reservation, then both are online and capacity and reserved add up', () => {
    const { domain } = siteAt(4);
    expect(statuses(4)).toEqual([
      ['host-a', 'online', false],
      ['host-b', 'online', false],
    ]);
    expect(domain).toMatchObject({
      nodes: { online: 2, offline: 0, draining: 0 },
      capacity: { cpuMillis: 12_000, memoryBytes: 2000, accelerators: 0 },
      reserved: reserved,
    });
  });

  it('given a drain, a node of another domain, and a node gone offline, then statuses are as of the instant', () => {
    expect(statuses(6)).toEqual([
      ['host-a', 'offline', false],
      ['host-b', 'online', true],
    ]);
    expect(siteAt(6).domain.nodes).toEqual({ online: 1, offline: 1, draining: 1 });
  });

  it('given a node re-registered into the domain and a reservation released, then it is a member', () => {
    const { domain } = siteAt(8);
    expect(domain.members.map((m) => m.nodeId)).toEqual([A, B, C]);
    expect(domain.nodes).toEqual({ online: 3, offline: 0, draining: 1 });
    expect(domain.capacity.cpuMillis).toBe(14_000);
    expect(domain.reserved.cpuMillis).toBe(0);
  });

  it('given a deregistration and a re-registration elsewhere, then those nodes are no longer members', () => {
    expect(statuses(9)).toEqual([
      ['host-a', 'online', false],
      ['host-c', 'online', false],
    ]);
    expect(statuses(11)).toEqual([['host-a', 'online', false]]);
  });

  it('given a stream with an event after the instant, then later events of that stream are not folded', () => {
    const log = new LogBuilder();
    log.add(`node-${A}`, 'NodeRegistered', registration(A, 'site', 4), h(2));
    log.add(`node-${A}`, 'NodeWentOffline', { nodeId: A, lastSeenAt: null, ttlSeconds: 15 }, h(5));
    log.add(`node-${A}`, 'NodeCameOnline', { nodeId: A, seenAt: h(3) }, h(3));
    const nodes = new NodesAt(ms(4));
    for (const event of log.events) nodes.accept(event);
    expect(nodes.domain('site').nodes).toEqual({ online: 1, offline: 0, draining: 0 });
  });

  it('given a domain never defined, then it is known only once a node registered into it', () => {
    const { nodes } = siteAt(0);
    expect([nodes.everHad('site'), nodes.everHad('other'), nodes.everHad('nowhere')]).toEqual([
      true,
      true,
      false,
    ]);
  });
});
