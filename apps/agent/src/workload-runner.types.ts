import type { AcceleratorDevice, AgentCommand, AgentReport } from '@hcn/contracts';
import type { ContainerExecutorOptions } from './containers/container.executor';
import type { ProcessStamp } from './executors/process-stamp';
import type { ProcessSandbox } from './isolation/process-sandbox';
import type { ModelLauncherOptions } from './models/model-launcher';
import type { ServiceAllocation } from './services/service-runtime';

/** A `run` command: one allocation to start. */
export type RunCommand = Extract<AgentCommand, { kind: 'run' }>;
/** A `stop-allocation` command. */
export type StopAllocationCommand = Extract<AgentCommand, { kind: 'stop-allocation' }>;
/** A report body without the fields the agent adds (node, credential, sequence, send time). */
export type ReportBody =
  | Omit<Extract<AgentReport, { kind: 'allocation' }>, 'nodeId' | 'domainId' | 'mac' | 'seq' | 'sentAt'>
  | Omit<Extract<AgentReport, { kind: 'logs' }>, 'nodeId' | 'domainId' | 'mac' | 'seq' | 'sentAt'>;

/** Where an allocation this agent runs belongs (kept on disk so a restarted agent can account for it). */
export interface Owned {
  workloadId: string;
  /** A process allocation's process, which leads its process group (and session). */
  pid?: number;
  /** Which process `pid` was (so a restarted agent never kills a group that merely reuses the number). */
  stamp?: ProcessStamp;
  /** Absent: a host process. */
  runtime?: 'container';
  /** A service: its ports and probes. */
  service?: ServiceAllocation;
}

/** The node's devices (as registered) and where the vram-guard library is, for device placements. */
export interface DeviceSetup {
  devices(): readonly AcceleratorDevice[];
  readonly vramGuardPath?: string;
  /** Runs process placements as the workload user inside their limits (absent: as the agent, unlimited). */
  readonly sandbox?: ProcessSandbox;
  /** How to run container placements (absent: this node has no container engine). */
  readonly containers?: ContainerRuntimeOptions;
  /** How to serve model placements (absent: no framework is served; they fail MODEL.FRAMEWORK_UNAVAILABLE). */
  readonly models?: Omit<ModelLauncherOptions, 'baseDir' | 'reservePorts'>;
}

/** The container executor's options that the agent's configuration decides. */
export type ContainerRuntimeOptions = Omit<ContainerExecutorOptions, 'onEvent' | 'baseDir' | 'nodeId'>;
