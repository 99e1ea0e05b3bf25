import { FILTERS } from '../registry';
import { compiled, domain, indexOf, node, nodeIn, request } from '../../testing/fixtures';
import { MODEL_FRAMEWORK_UNAVAILABLE, nodeModelFrameworkFilter } from './node-model-framework';

describe('node-model-framework filter', () => {
  const index = indexOf(
    [domain('s', null)],
    [
      node('old', 's'),
      node('bare', 's', { modelFrameworks: [] }),
      node('sk', 's', { modelFrameworks: [{ framework: 'sklearn', runtimes: ['process'] }] }),
      node('both', 's', {
        runtimes: ['container', 'process'],
        modelFrameworks: [
          { framework: 'onnx', runtimes: ['container'] },
          { framework: 'sklearn', runtimes: ['container', 'process'] },
        ],
      }),
    ],
  );

  it.each<[string, string, string | undefined, string | undefined, string | undefined, string | undefined]>([
    ['a process on a node that never said', 'old', undefined, undefined, undefined, undefined],
    [
      'a model on a node that never said',
      'old',
      'sklearn',
      undefined,
      MODEL_FRAMEWORK_UNAVAILABLE,
      'serves no model frameworks, not sklearn (process)',
    ],
    [
      'a model on a node that serves none',
      'bare',
      'sklearn',
      undefined,
      MODEL_FRAMEWORK_UNAVAILABLE,
      'serves no model frameworks, not sklearn (process)',
    ],
    ['an sklearn process model where sklearn is served', 'sk', 'sklearn', undefined, undefined, undefined],
    [
      'an unknown framework',
      'sk',
      'mystery',
      undefined,
      MODEL_FRAMEWORK_UNAVAILABLE,
      'serves sklearn (process), not mystery (process)',
    ],
    [
      'a container model where the framework is served by processes only',
      'sk',
      'sklearn',
      'container',
      MODEL_FRAMEWORK_UNAVAILABLE,
      'serves sklearn (process), not sklearn (container)',
    ],
    ['a container model where its image is configured', 'both', 'onnx', 'container', undefined, undefined],
    [
      'a process model of a framework served in containers only',
      'both',
      'onnx',
      undefined,
      MODEL_FRAMEWORK_UNAVAILABLE,
      'serves onnx (container), sklearn (container, process), not onnx (process)',
    ],
    ['a process model on a node with both', 'both', 'sklearn', undefined, undefined, undefined],
  ])('%s', (...[_, nodeId, modelFramework, runtime, expected, detail]) => {
    const req = compiled(
      index,
      request({ ...(modelFramework ? { modelFramework } : {}), ...(runtime ? { runtime } : {}) }),
    );
    const rejection = nodeModelFrameworkFilter.node(nodeIn(index, nodeId), req);
    expect(rejection?.reason).toBe(expected);
    if (detail) expect(rejection?.detail).toBe(`node ${nodeId} ${detail}`);
  });

  it('is idle for everything but models, and registered right after the runtime filter', () => {
    expect(nodeModelFrameworkFilter.idle(compiled(index, request()))).toBe(true);
    expect(nodeModelFrameworkFilter.idle(compiled(index, request({ runtime: 'container' })))).toBe(true);
    expect(nodeModelFrameworkFilter.idle(compiled(index, request({ modelFramework: 'onnx' })))).toBe(false);
    const names = FILTERS.map((f) => f.name);
    expect(names.indexOf('node-model-framework')).toBe(names.indexOf('node-runtime') + 1);
  });
});
