import { compiled, domain, indexOf, node, nodeIn, request } from '../../testing/fixtures';
import { RUNTIME_UNAVAILABLE, nodeRuntimeFilter } from './node-runtime';

describe('node-runtime filter', () => {
  const index = indexOf(
    [domain('s', null)],
    [
      node('old', 's'),
      node('proc', 's', { runtimes: ['process'] }),
      node('both', 's', { runtimes: ['process', 'container'] }),
    ],
  );

  it.each<[string, string, string | undefined, string | undefined, string | undefined]>([
    ['a process on a node that never said', 'old', undefined, undefined, undefined],
    [
      'a container on a node that never said',
      'old',
      'container',
      RUNTIME_UNAVAILABLE,
      'offers process, not container',
    ],
    [
      'a container on a process-only node',
      'proc',
      'container',
      RUNTIME_UNAVAILABLE,
      'offers process, not container',
    ],
    ['a container on a node with an engine', 'both', 'container', undefined, undefined],
    ['a process on a node with an engine', 'both', 'process', undefined, undefined],
  ])('%s', (...[_, nodeId, runtime, expected, detail]) => {
    const req = compiled(index, request(runtime ? { runtime } : {}));
    const rejection = nodeRuntimeFilter.node(nodeIn(index, nodeId), req);
    expect(rejection?.reason).toBe(expected);
    if (detail) expect(rejection?.detail).toBe(`node ${nodeId} ${detail}`);
  });

  it('is idle for processes and runs for containers', () => {
    expect(nodeRuntimeFilter.idle(compiled(index, request()))).toBe(true);
    expect(nodeRuntimeFilter.idle(compiled(index, request({ runtime: 'container' })))).toBe(false);
  });
});
