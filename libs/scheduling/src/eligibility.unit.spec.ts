import { eligibleNodes } from './eligibility';
import { domain, indexOf, node, request, res } from './testing/fixtures';

describe('eligibleNodes', () => {
  const index = indexOf(
    [domain('site', null)],
    [
      node('full', 'site', { allocated: res(8, 32) }),
      node('gpu', 'site', { labels: { accel: 'gpu' } }),
      node('off', 'site', { online: false }),
      node('drained', 'site', { draining: true }),
      node('plain', 'site'),
    ],
  );

  it.each<[string, Parameters<typeof request>[1], string[], Record<string, number>]>([
    [
      'no constraints: every online, undrained node, full or not',
      {},
      ['full', 'gpu', 'plain'],
      { 'FILTER.NODE_OFFLINE': 1, 'FILTER.NODE_DRAINING': 1 },
    ],
    [
      'a label constraint leaves the others out with its reason',
      { labels: [{ key: 'accel', op: '=', value: 'gpu' }] },
      ['gpu'],
      { 'FILTER.NODE_OFFLINE': 1, 'FILTER.NODE_DRAINING': 1, 'FILTER.LABEL_MISMATCH': 2 },
    ],
    [
      'a node list keeps only its nodes',
      { nodes: ['plain', 'off'] },
      ['plain'],
      { 'FILTER.NODE_NOT_ALLOWED': 3, 'FILTER.NODE_OFFLINE': 1 },
    ],
  ])('%s', (...[_, constraints, eligible, rejected]) => {
    const result = eligibleNodes(index, request({ resources: res(4, 4) }, constraints));
    expect(result.eligible).toEqual(eligible);
    expect(result.rejected).toEqual(rejected);
  });
});
