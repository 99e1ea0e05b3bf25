import { LogBuilder } from '../testing/recorded';
import { complianceReport } from './build-report';
import { parsePeriod } from './period';
import { reportCsv, reportHtml } from './render-report';

const GiB = 2 ** 30;
const W = '11111111-1111-4111-8111-111111111111';
const A = '22222222-2222-4222-8222-222222222222';
const N = '33333333-3333-4333-8333-333333333333';
const day = (h: number, m = 0) => new Date(Date.UTC(2026, 10, 1, h, m)).toISOString();

function spec(namespace: string, regions: string[] = []) {
  return {
    name: 'job',
    namespace,
    resources: { cpuMillis: 2000, memoryBytes: 4 * GiB, accelerators: 1 },
    replicas: 1,
    constraints: {
      labels: [],
      domains: { affinity: [], antiAffinity: [] },
      regions: { affinity: regions, antiAffinity: [] },
      nodeBlacklist: [],
      preferDomains: [],
      preferRegions: [],
    },
  };
}

/** A node in site-us (region us, inherited) with one A100-80G, and one workload of team-a placed there. */
function fleet(regions: string[] = []): LogBuilder {
  const log = new LogBuilder();
  log.add('domain-us', 'DomainDefined', { domainId: 'us', parentId: null, region: 'us' }, day(0));
  log.add('domain-site-us', 'DomainDefined', { domainId: 'site-us', parentId: 'us', region: null }, day(0));
  const devices = [{ vendor: 'nvidia', index: 0, model: 'A100-80G', memoryBytes: 80 * GiB }];
  log.add(`node-${N}`, 'NodeRegistered', { nodeId: N, domainId: 'site-us', devices }, day(0));
  const ws = `workload-${W}`;
  log.add(ws, 'WorkloadSubmitted', { workloadId: W, spec: spec('team-a', regions) }, day(9));
  const hop = { workloadId: W, instance: 0, attempt: 0, toKind: 'domain', candidates: [] };
  log.add(ws, 'WorkloadDelegated', { ...hop, hop: 0, fromScope: null, to: 'us' }, day(9));
  log.add(
    ws,
    'DelegationRejected',
    {
      workloadId: W,
      scope: 'site-eu',
      reason: 'SCHEDULE.NO_FEASIBLE_NODE',
      detail: '',
      candidates: [{ id: 'bad-node', kind: 'node', accepted: false, reason: 'FILTER.NODE_BLACKLISTED' }],
    },
    day(9),
  );
  const resources = { cpuMillis: 2000, memoryBytes: 4 * GiB, accelerators: 1 };
  const placed = { workloadId: W, allocationId: A, instance: 0, attempt: 0, nodeId: N, domainId: 'site-us' };
  log.add(ws, 'AllocationPlaced', { ...placed, generation: 1, resources }, day(9));
  log.add(
    ws,
    'AllocationStarted',
    { workloadId: W, allocationId: A, nodeId: N, pid: 1, startedAt: day(10) },
    day(10),
  );
  return log;
}

describe('compliance report', () => {
  const period = { fromMs: Date.parse(day(0)), toMs: Date.parse(day(24)) };

  it('given an allocation that ran two hours, then usage counts resource-hours by its node devices', () => {
    const log = fleet();
    const ended = { workloadId: W, allocationId: A, nodeId: N, exitCode: 0, endedAt: day(12) };
    log.add(`workload-${W}`, 'AllocationCompleted', ended, day(12));
    const report = complianceReport(log.events, period, '*');
    expect(report.usage).toEqual([
      {
        namespace: 'team-a',
        allocations: 1,
        cpuCoreHours: 4,
        memoryGiBHours: 8,
        acceleratorHours: 2,
        acceleratorMemoryGiBHours: 160,
        computeUnitHours: 2,
        measuredAllocations: 0,
        measuredCpuCoreHours: 0,
        peakMemoryGiB: 0,
      },
    ]);
    expect(report.placements).toEqual([{ region: 'us', domainId: 'site-us', placements: 1 }]);
    expect(report.delegations).toEqual([
      { kind: 'fallback', from: 'site-eu', to: 'site-us', count: 1 },
      { kind: 'hop', from: '(root)', to: 'us', count: 1 },
    ]);
    expect(report.blacklistHits).toEqual([{ namespace: 'team-a', nodeId: 'bad-node', hits: 1 }]);
  });

  it('given a measured allocation, then measured core-hours (its share in the period) and its peak stand beside reserved', () => {
    const log = fleet();
    const usage = { cpuSeconds: 3 * 3600, memoryBytes: GiB, memoryPeakBytes: 3 * GiB };
    const ended = { workloadId: W, allocationId: A, nodeId: N, exitCode: 0, endedAt: day(12), usage };
    log.add(`workload-${W}`, 'AllocationCompleted', ended, day(12));
    const whole = complianceReport(log.events, period, '*').usage[0];
    expect(whole).toMatchObject({
      cpuCoreHours: 4,
      measuredAllocations: 1,
      measuredCpuCoreHours: 3,
      peakMemoryGiB: 3,
    });
    const half = { fromMs: Date.parse(day(11)), toMs: Date.parse(day(24)) };
    expect(complianceReport(log.events, half, '*').usage[0]).toMatchObject({ measuredCpuCoreHours: 1.5 });
  });

  it.each([
    ['clipped to the period start', { fromMs: Date.parse(day(11)), toMs: Date.parse(day(24)) }, 2],
    [
      'open allocation closed at the last event',
      { fromMs: Date.parse(day(0)), toMs: Date.parse(day(24)) },
      4,
    ],
  ])('given %s, then usage covers only that interval', (_name, p, coreHours) => {
    const log = fleet();
    log.add('domain-x', 'DomainDefined', { domainId: 'x', parentId: null, region: null }, day(12));
    expect(complianceReport(log.events, p, '*').usage[0].cpuCoreHours).toBe(coreHours);
  });

  it('given a workload constrained to eu placed in us, then it is a residency violation', () => {
    const report = complianceReport(fleet(['eu']).events, period, '*');
    expect(report.residencyViolations).toEqual([
      expect.objectContaining({ workloadId: W, allowedRegions: 'eu', region: 'us', domainId: 'site-us' }),
    ]);
    expect(complianceReport(fleet(['us']).events, period, '*').residencyViolations).toEqual([]);
  });

  it('given a denial and limits lowered below usage, then both are quota rows', () => {
    const log = fleet();
    const held = { cpuMillis: 2000, memoryBytes: 1, accelerators: 0 };
    log.add('quota-team-a', 'QuotaConsumed', { namespace: 'team-a', workloadId: W, resources: held }, day(9));
    log.add('quota-team-a', 'QuotaSet', { namespace: 'team-a', limits: { cpuMillis: 1000 } }, day(13));
    const denied = { namespace: 'team-a', workloadId: A, workloadName: 'big', resources: held, over: ['x'] };
    log.add('admission-team-a', 'AdmissionDenied', denied, day(14));
    expect(complianceReport(log.events, period, '*').quota).toEqual([
      {
        at: day(13),
        namespace: 'team-a',
        kind: 'breach',
        workload: '',
        detail: 'cpuMillis: 2000 > limit 1000',
      },
      { at: day(14), namespace: 'team-a', kind: 'denial', workload: 'big', detail: 'x' },
    ]);
  });

  it('given a node offline for six hours of a day, then its domain is 75 % available', () => {
    const log = fleet();
    log.add(`node-${N}`, 'NodeWentOffline', { nodeId: N, lastSeenAt: null, ttlSeconds: 15 }, day(6));
    log.add(`node-${N}`, 'NodeCameOnline', { nodeId: N, seenAt: day(12) }, day(12));
    log.add('domain-z', 'DomainDefined', { domainId: 'z', parentId: null, region: null }, day(24));
    expect(complianceReport(log.events, period, '*').availability).toEqual([
      { domainId: 'site-us', nodes: 1, trackedHours: 24, onlineHours: 18, uptimePercent: 75 },
    ]);
  });

  it('given a namespace-scoped reader, then other namespaces are left out', () => {
    const report = complianceReport(fleet(['eu']).events, period, ['team-b']);
    expect([report.usage, report.placements, report.residencyViolations, report.blacklistHits]).toEqual([
      [],
      [],
      [],
      [],
    ]);
  });

  it('given the same log and period, then CSV and HTML are the same bytes', () => {
    const events = fleet(['eu']).events;
    const csv = reportCsv(complianceReport(events, period, '*'));
    expect(reportCsv(complianceReport(events, period, '*'))).toBe(csv);
    expect(csv).toContain('# usage\nnamespace,allocations,cpuCoreHours');
    expect(reportHtml(complianceReport(events, period, '*'))).toContain('<h2>Data-residency violations</h2>');
  });
});

describe('parsePeriod', () => {
  it.each([
    [{ month: '2026-11' }, '2026-11-01T00:00:00.000Z', '2026-12-01T00:00:00.000Z'],
    [{ month: '2026-12' }, '2026-12-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z'],
    [
      { from: '2026-11-01', to: '2026-11-02T12:00:00+02:00' },
      '2026-11-01T00:00:00.000Z',
      '2026-11-02T10:00:00.000Z',
    ],
  ])('parses %j', (query, from, to) => {
    const p = parsePeriod(query);
    expect([new Date(p.fromMs).toISOString(), new Date(p.toMs).toISOString()]).toEqual([from, to]);
  });

  it.each([
    [{}],
    [{ month: '2026-13' }],
    [{ month: '2026-11', from: '2026-11-01' }],
    [{ from: '2026-11-02', to: '2026-11-01' }],
    [{ from: 'yesterday', to: '2026-11-01' }],
    [{ from: '2026-11-01T00:00:00', to: '2026-11-02' }],
  ])('refuses %j with AUDIT.PERIOD_INVALID', (query) => {
    expect(() => parsePeriod(query)).toThrow(expect.objectContaining({ code: 'AUDIT.PERIOD_INVALID' }));
  });
});
