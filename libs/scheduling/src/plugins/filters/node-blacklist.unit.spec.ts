import { compiled, domain, indexOf, node, nodeIn, request } from '../../testing/fixtures';
import { NODE_BLACKLISTED, nodeBlacklistFilter } from './node-blacklist';

describe('node-blacklist filter', () => {
  const index = indexOf([domain('s', null)], [node('n1', 's'), node('n2', 's')]);

  it.each<[string, string, string[], string | undefined]>([
    ['empty blacklist', 'n1', [], undefined],
    ['blacklisted', 'n1', ['n1', 'n9'], NODE_BLACKLISTED],
    ['not on the blacklist', 'n2', ['n1'], undefined],
  ])('%s', (...[_, nodeId, nodeBlacklist, expected]) => {
    const req = request({}, { nodeBlacklist });
    const rejection = nodeBlacklistFilter.node(nodeIn(index, nodeId), compiled(index, req));
    expect(rejection?.reason).toBe(expected);
    if (expected) expect(rejection?.detail).toMatch(/n1 is on the workload's blacklist/);
  });
});
