import { compiled, domain, indexOf, node, nodeIn, request } from '../../testing/fixtures';
import { NODE_EXCLUDED, nodeExcludedFilter } from './node-excluded';

describe('node-excluded filter', () => {
  const index = indexOf([domain('s', null)], [node('n1', 's'), node('n2', 's')]);

  it.each<[string, string, string[] | undefined, string | undefined]>([
    ['no exclusions', 'n1', undefined, undefined],
    ['empty exclusions', 'n1', [], undefined],
    ['the node is excluded', 'n1', ['n1'], NODE_EXCLUDED],
    ['another node is excluded', 'n2', ['n1'], undefined],
  ])('%s', (...[_, nodeId, excludeNodes, expected]) => {
    const rejection = nodeExcludedFilter.node(
      nodeIn(index, nodeId),
      compiled(index, request({ excludeNodes })),
    );
    expect(rejection?.reason).toBe(expected);
    if (expected) expect(rejection?.detail).toContain(nodeId);
  });
});
