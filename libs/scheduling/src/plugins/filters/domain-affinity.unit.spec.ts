import type { CompiledRequest } from '../../constraints';
import { compiled, domain, domainIn, indexOf, node, nodeIn, request } from '../../testing/fixtures';
import { DOMAIN_AFFINITY, DOMAIN_ANTI_AFFINITY, domainAffinityFilter } from './domain-affinity';

describe('domain-affinity filter', () => {
  const index = indexOf(
    ['global', 'eu', 'us', 'eu-a', 'us-a'].map((id) =>
      domain(id, id === 'global' ? null : id.includes('-') ? id.split('-')[0] : 'global'),
    ),
    [node('eu-a-n1', 'eu-a'), node('us-a-n1', 'us-a'), node('eu-direct', 'eu')],
  );
  const req = (affinity: string[], antiAffinity: string[]): CompiledRequest =>
    compiled(index, request({}, { domains: { affinity, antiAffinity } }));

  describe('nodes', () => {
    it.each<[string, string, string[], string[], string | undefined, string?]>([
      ['no constraint', 'eu-a-n1', [], [], undefined],
      ['affinity to an ancestor', 'eu-a-n1', ['eu'], [], undefined],
      ['affinity to its own domain', 'eu-a-n1', ['eu-a'], [], undefined],
      [
        'affinity elsewhere',
        'eu-a-n1',
        ['us'],
        [],
        DOMAIN_AFFINITY,
        'global/eu/eu-a is not in or under any of [us]',
      ],
      ['affinity below its domain does not cover it', 'eu-direct', ['eu-a'], [], DOMAIN_AFFINITY],
      ['affinity to an unknown domain', 'eu-a-n1', ['nowhere'], [], DOMAIN_AFFINITY],
      [
        'anti-affinity to an ancestor',
        'eu-a-n1',
        [],
        ['global'],
        DOMAIN_ANTI_AFFINITY,
        'anti-affine domain global',
      ],
      ['anti-affinity elsewhere', 'eu-a-n1', [], ['us'], undefined],
      ['anti-affinity wins inside affinity', 'eu-a-n1', ['eu'], ['eu-a'], DOMAIN_ANTI_AFFINITY],
    ])('%s', (...[_, nodeId, affinity, anti, expected, detail]) => {
      const rejection = domainAffinityFilter.node(nodeIn(index, nodeId), req(affinity, anti));
      expect(rejection?.reason).toBe(expected);
      if (detail) expect(rejection?.detail).toContain(detail);
    });
  });

  describe('domains before a visit', () => {
    it.each<[string, string, string[], string[], string | undefined]>([
      ['affinity to a descendant keeps the subtree', 'eu', ['eu-a'], [], undefined],
      ['affinity to an ancestor keeps the subtree', 'eu', ['global'], [], undefined],
      ['affinity in another subtree prunes it', 'us', ['eu-a'], [], DOMAIN_AFFINITY],
      ['anti-affinity to a descendant keeps the rest of the subtree', 'eu', [], ['eu-a'], undefined],
      ['anti-affinity to an ancestor prunes it', 'eu-a', [], ['eu'], DOMAIN_ANTI_AFFINITY],
    ])('%s', (...[_, domainId, affinity, anti, expected]) => {
      const rejection = domainAffinityFilter.domain(domainIn(index, domainId), req(affinity, anti));
      expect(rejection?.reason).toBe(expected);
    });
  });
});
