import type { CompiledRequest } from '../../constraints';
import { compiled, domain, domainIn, indexOf, node, nodeIn, request } from '../../testing/fixtures';
import { REGION_AFFINITY, REGION_ANTI_AFFINITY, regionAffinityFilter } from './region-affinity';

describe('region-affinity filter', () => {
  const index = indexOf(
    [
      domain('global', null),
      domain('eu', 'global', { region: 'eu' }),
      domain('eu-a', 'eu'),
      domain('eu-x', 'eu', { region: 'eu-north' }),
      domain('us', 'global', { region: 'us' }),
      domain('us-a', 'us'),
      domain('lab', null),
    ],
    ['eu-a', 'eu-x', 'us-a', 'lab'].map((site) => node(`${site}-n1`, site)),
  );
  const req = (affinity: string[], antiAffinity: string[]): CompiledRequest =>
    compiled(index, request({}, { regions: { affinity, antiAffinity } }));

  describe('nodes (inherited regions)', () => {
    it.each<[string, string, string[], string[], string | undefined, string?]>([
      ['inherits eu from its parent', 'eu-a-n1', ['eu'], [], undefined],
      [
        'an own region overrides the parent',
        'eu-x-n1',
        ['eu'],
        [],
        REGION_AFFINITY,
        'region eu-north is not one of [eu]',
      ],
      ['no region anywhere above', 'lab-n1', ['eu'], [], REGION_AFFINITY, 'region (none)'],
      [
        'anti-affinity to its region',
        'us-a-n1',
        [],
        ['us'],
        REGION_ANTI_AFFINITY,
        'region us is anti-affine',
      ],
      ['anti-affinity does not exclude a region-less node', 'lab-n1', [], ['us'], undefined],
      ['both lists, allowed', 'eu-x-n1', ['eu-north', 'us'], ['eu'], undefined],
    ])('%s', (...[_, nodeId, affinity, anti, expected, detail]) => {
      const rejection = regionAffinityFilter.node(nodeIn(index, nodeId), req(affinity, anti));
      expect(rejection?.reason).toBe(expected);
      if (detail) expect(rejection?.detail).toContain(detail);
    });
  });

  describe('domains before a visit (any region in the subtree)', () => {
    it.each<[string, string, string[], string[], string | undefined]>([
      ['a region below satisfies affinity', 'global', ['eu-north'], [], undefined],
      ['no acceptable region below', 'us', ['eu'], [], REGION_AFFINITY],
      ['region-less subtree fails affinity', 'lab', ['eu'], [], REGION_AFFINITY],
      ['anti-affinity leaves another region below', 'eu', [], ['eu'], undefined],
      ['anti-affinity covers every region below', 'eu', [], ['eu', 'eu-north'], REGION_ANTI_AFFINITY],
      ['region-less subtree passes anti-affinity', 'lab', [], ['eu'], undefined],
    ])('%s', (...[_, domainId, affinity, anti, expected]) => {
      const rejection = regionAffinityFilter.domain(domainIn(index, domainId), req(affinity, anti));
      expect(rejection?.reason).toBe(expected);
    });
  });
});
