import { domain, indexOf, node, nodeIn } from '../../testing/fixtures';
import { NODE_DRAINING, nodeDrainingFilter } from './node-draining';

describe('node-draining filter', () => {
  it.each<[string, boolean, string | undefined]>([
    ['not draining', false, undefined],
    ['draining', true, NODE_DRAINING],
  ])('%s', (...[_, draining, expected]) => {
    const index = indexOf([domain('s', null)], [node('n1', 's', { draining })]);
    const rejection = nodeDrainingFilter.node(nodeIn(index, 'n1'));
    expect(rejection?.reason).toBe(expected);
    if (expected) expect(rejection?.detail).toBe('node n1 is draining');
  });
});
