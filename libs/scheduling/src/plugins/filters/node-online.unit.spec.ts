import { domain, indexOf, node, nodeIn } from '../../testing/fixtures';
import { NODE_OFFLINE, nodeOnlineFilter } from './node-online';

describe('node-online filter', () => {
  it.each<[string, boolean, boolean, string | undefined]>([
    ['online', true, false, undefined],
    ['offline', false, false, NODE_OFFLINE],
    ['offline and draining', false, true, NODE_OFFLINE],
    ['online but draining (not this filter)', true, true, undefined],
  ])('%s', (...[_, online, draining, expected]) => {
    const index = indexOf([domain('s', null)], [node('n1', 's', { online, draining })]);
    const rejection = nodeOnlineFilter.node(nodeIn(index, 'n1'));
    expect(rejection?.reason).toBe(expected);
    if (expected) expect(rejection?.detail).toBe('node n1 is offline');
  });
});
