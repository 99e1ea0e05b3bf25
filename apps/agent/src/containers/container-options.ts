import type { AgentConfig } from '../config';
import { detectCgroupMode } from '../isolation/cgroups';
import type { ContainerRuntimeOptions } from '../workload-runner';
import type { ContainerEngine } from './engine';

/** How the agent runs containers on `engine`: its host policy, cgroups and clean-up, from its configuration. */
export function containerOptions(
  engine: ContainerEngine,
  c: AgentConfig['containers'],
): ContainerRuntimeOptions {
  const cgroups = c.cgroups === 'off' ? 'none' : detectCgroupMode();
  return {
    engine,
    policy: {
      allowedHostPaths: c.allowedHostPaths,
      pidsLimit: c.pidsLimit,
      ulimits: [
        { name: 'nofile', soft: 1024, hard: 1024 },
        { name: 'nproc', soft: 4096, hard: 4096 },
      ],
      ...(cgroups === 'none' ? {} : { cgroupParent: '/hcn-agent' }),
    },
    cgroups,
    keepFinished: c.keepFinished,
  };
}
