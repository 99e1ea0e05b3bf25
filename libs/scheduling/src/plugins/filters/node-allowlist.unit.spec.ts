import { decide } from '../../descent/decide';
import { compiled, domain, domainIn, indexOf, node, nodeIn, request } from '../../testing/fixtures';
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

describe('node-allowlist filter on domains', () => {
  const index = indexOf(
    [domain('root', null), domain('east', 'root'), domain('west', 'root'), domain('east-a', 'east')],
    [node('n1', 'east-a'), node('n2', 'west')],
  );

  it.each<[string, string, string[] | undefined, string | undefined]>([
    ['no node list', 'west', undefined, undefined],
    ['the listed node is below it', 'east', ['n1'], undefined],
    ['it is the listed node home', 'east-a', ['n1'], undefined],
    ['no listed node below it', 'west', ['n1'], NODE_NOT_ALLOWED],
    ['only unknown nodes are listed', 'east', ['n9'], NODE_NOT_ALLOWED],
  ])('%s', (...[_, domainId, nodes, expected]) => {
    const rejection = nodeAllowlistFilter.domain(
      domainIn(index, domainId),
      compiled(index, request({}, nodes ? { nodes } : {})),
    );
    expect(rejection?.reason).toBe(expected);
  });

  it('a pinned decision descends straight to its node: no subtree fails on the way', () => {
    const decision = decide(index, request({}, { nodes: ['n2'] }));
    expect(decision).toMatchObject({ outcome: 'placed', nodeId: 'n2', rejections: [] });
  });
});
