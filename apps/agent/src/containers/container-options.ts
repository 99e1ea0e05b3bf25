import { DEFAULT_ENGINE_SOCKETS } from '@hcn/platform';
import { existsSync } from 'node:fs';
import type { AgentConfig } from '../config';
import { detectCgroupMode } from '../isolation/cgroups';
import type { ContainerRuntimeOptions } from '../workload-runner';
import type { ContainerEngine } from './engine';

/** The engine socket: the configured one, else Docker's or rootful Podman's default when present. */
export function engineSocket(configured: string | undefined): string | undefined {
  if (configured) return configured;
  return DEFAULT_ENGINE_SOCKETS.find((path) => existsSync(path));
}

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
