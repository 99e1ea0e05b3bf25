import { compiled, domain, indexOf, node, nodeIn, request } from '../../testing/fixtures';
import { NODE_NOT_ALLOWED, nodeAllowlistFilter } from './node-allowlist';

describe('node-allowlist filter', () => {
  const index = indexOf([domain('s', null)], [node('n1', 's'), node('n2', 's')]);

  it.each<[string, string, string[] | undefined, string | undefined]>([
    ['no node list', 'n1', undefined, undefined],
    ['listed', 'n1', ['n1', 'n9'], undefined],
    ['not listed', 'n2', ['n1'], NODE_NOT_ALLOWED],
  ])('%s', (...[_, nodeId, nodes, expected]) => {
    const req = request({}, nodes ? { nodes } : {});
    const filter = nodeAllowlistFilter;
    const compiledRequest = compiled(index, req);
    expect(filter.idle(compiledRequest)).toBe(nodes === undefined);
    const rejection = filter.node(nodeIn(index, nodeId), compiledRequest);
    expect(rejection?.reason).toBe(expected);
    if (expected) expect(rejection?.detail).toMatch(/n2 is not among the workload's nodes/);
  });
});
