import type { Filter } from '../types';

/** The node's agent does not serve the model's framework with the runtime it asks for (no serving command or image). */
export const MODEL_FRAMEWORK_UNAVAILABLE = 'FILTER.MODEL_FRAMEWORK_UNAVAILABLE';

/** How a node's served frameworks read in a rejection: `sklearn (process), onnx (container, process)` or `none`. */
function served(frameworks: readonly { framework: string; runtimes: readonly string[] }[]): string {
  if (frameworks.length === 0) return 'no model frameworks';
  return frameworks.map((f) => `${f.framework} (${f.runtimes.join(', ')})`).join(', ');
}

/** Rejects nodes that cannot serve a model's framework with its runtime; idle for every workload but models. */
export const nodeModelFrameworkFilter = {
  name: 'node-model-framework',
  reasons: [MODEL_FRAMEWORK_UNAVAILABLE],
  idle: (request) => request.modelFramework === null,
  node: (node, request) => {
    const frameworks = node.view.modelFrameworks ?? [];
    const wanted = request.modelFramework;
    const entry = frameworks.find((f) => f.framework === wanted);
    if (wanted === null || entry?.runtimes.includes(request.runtime)) return undefined;
    return {
      reason: MODEL_FRAMEWORK_UNAVAILABLE,
      detail: `node ${node.id} serves ${served(frameworks)}, not ${wanted} (${request.runtime})`,
    };
  },
} satisfies Filter;
