import { LogBuilder } from '../testing/recorded';
import { complianceReport } from './build-report';

const GiB = 2 ** 30;
const W = '11111111-1111-4111-8111-111111111111';
const D1 = '22222222-2222-4222-8222-222222222222';
const D2 = '44444444-4444-4444-8444-444444444444';
const day = (h: number, m = 0) => new Date(Date.UTC(2026, 10, 1, h, m)).toISOString();
const resources = { cpuMillis: 2000, memoryBytes: 4 * GiB, accelerators: 0 };

function spec(affinity: string[], antiAffinity: string[] = []) {
  const none = { affinity: [], antiAffinity: [] };
  const regions = { affinity, antiAffinity };
  const constraints = {
    labels: [],
    domains: none,
    regions,
    nodeBlacklist: [],
    preferDomains: [],
    preferRegions: [],
  };
  return { name: 'job', namespace: 'team-a', resources, replicas: 1, constraints };
}

/** Two child sites (eu, and us + ca); one workload refused by child-b, then handed to child-a, ran two hours. */
function federation(affinity: string[], antiAffinity: string[] = []): LogBuilder {
  const log = new LogBuilder();
  log.add('site-child-a', 'SiteRegistered', { siteId: 'child-a', regions: ['eu'] }, day(0));
  log.add('site-child-b', 'SiteRegistered', { siteId: 'child-b', regions: ['us', 'ca'] }, day(0));
  const ws = `workload-${W}`;
  log.add(ws, 'WorkloadSubmitted', { workloadId: W, spec: spec(affinity, antiAffinity) }, day(9));
  const decision = (site: string) => ({
    hops: [
      { scope: 'root', policy: 'spread', to: 0, members: 1, judged: 1, kept: [['n', `site:${site}`, 1]] },
    ],
    topK: 5,
  });
  const base = { workloadId: W, instance: 0, generation: 1, relation: 'child', resources };
  log.add(
    ws,
    'AllocationDelegated',
    { ...base, allocationId: D1, attempt: 0, siteId: 'child-b', decision: decision('child-b') },
    day(9),
  );
  const refusal = {
    workloadId: W,
    instance: 0,
    attempt: 0,
    scope: 'site:child-b',
    reason: 'quota',
    detail: '',
    candidates: [],
  };
  log.add(ws, 'DelegationRejected', { ...refusal, allocationId: D1, siteId: 'child-b' }, day(9));
  log.add(
    ws,
    'AllocationDelegated',
    { ...base, allocationId: D2, attempt: 1, siteId: 'child-a', decision: decision('child-a') },
    day(9),
  );
  const place = { workloadId: W, allocationId: D2, nodeId: 'site:child-a' };
  log.add(ws, 'AllocationStarted', { ...place, pid: 1, startedAt: day(10) }, day(10));
  log.add(ws, 'AllocationCompleted', { ...place, exitCode: 0, endedAt: day(12) }, day(12));
  return log;
}

describe('compliance report: work placed on other sites', () => {
  const period = { fromMs: Date.parse(day(0)), toMs: Date.parse(day(24)) };

  it("given work handed to child sites, then placements count them in the sites' regions, with usage and fallbacks", () => {
    const report = complianceReport(federation([]).events, period, '*');
    expect(report.placements).toEqual([
      { region: 'ca us', domainId: 'site:child-b', placements: 1 },
      { region: 'eu', domainId: 'site:child-a', placements: 1 },
    ]);
    expect(report.usage).toEqual([
      expect.objectContaining({ namespace: 'team-a', allocations: 1, cpuCoreHours: 4 }),
    ]);
    expect(report.delegations).toContainEqual(
      expect.objectContaining({ kind: 'fallback', from: 'site:child-b', to: 'site:child-a', count: 1 }),
    );
    expect(report.residencyViolations).toEqual([]);
  });

  it("given residency the site's regions break, then the hand-over is a violation at the site", () => {
    const outside = complianceReport(federation(['us']).events, period, '*');
    expect(outside.residencyViolations).toEqual([
      expect.objectContaining({
        workloadId: W,
        allocationId: D2,
        nodeId: 'site:child-a',
        domainId: 'site:child-a',
        region: 'eu',
        allowedRegions: 'us',
      }),
    ]);
    // child-b has us among its regions: allowed; all of a site's regions forbidden: a violation
    const forbidden = complianceReport(federation([], ['us', 'ca']).events, period, '*');
    expect(forbidden.residencyViolations.map((r) => r.domainId)).toEqual(['site:child-b']);
  });
});
