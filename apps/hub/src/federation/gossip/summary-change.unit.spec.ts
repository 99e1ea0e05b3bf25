import type { SiteSummary } from '@hcn/contracts';
import { materiallyChanged } from './summary-change';

const base: SiteSummary = {
  seq: 1,
  generatedAt: '2026-11-26T12:00:00.000Z',
  domains: [{ domainId: 'root', online: 10, offline: 0 }],
  nodes: { online: 10, offline: 0 },
  cpuMillis: { total: 100_000, free: 40_000 },
  memoryBytes: { total: 1_000_000, free: 500_000 },
  accelerators: [{ vendor: 'nvidia', model: 'h100', total: 8, free: 2 }],
  tags: ['runtime:process'],
  regions: ['eu-west'],
};
const cpuFree = (free: number): SiteSummary => ({ ...base, cpuMillis: { total: 100_000, free } });

describe('material change of a site summary', () => {
  it('is news when there is none yet, never for a new number or time alone', () => {
    expect(materiallyChanged(null, base)).toBe(true);
    expect(materiallyChanged(base, { ...base, seq: 2, generatedAt: '2026-11-26T12:00:10.000Z' })).toBe(false);
  });

  it('takes free CPU or memory as news past 1% of the total, or to or from none', () => {
    expect(materiallyChanged(base, cpuFree(41_000))).toBe(false); // exactly 1%
    expect(materiallyChanged(base, cpuFree(38_999))).toBe(true);
    expect(materiallyChanged(cpuFree(500), cpuFree(0))).toBe(true);
    expect(materiallyChanged(base, { ...base, memoryBytes: { total: 1_000_000, free: 489_000 } })).toBe(true);
  });

  it('takes any other difference as news: node counts, totals, accelerators, tags, regions', () => {
    const changes: Array<Partial<SiteSummary>> = [
      { nodes: { online: 9, offline: 1 } },
      { domains: [{ domainId: 'root', online: 9, offline: 1 }] },
      { cpuMillis: { total: 100_001, free: 40_000 } },
      { accelerators: [{ vendor: 'nvidia', model: 'h100', total: 8, free: 1 }] },
      { tags: [] },
      { regions: ['eu-west', 'us-east'] },
    ];
    for (const change of changes) expect(materiallyChanged(base, { ...base, ...change })).toBe(true);
  });
});
