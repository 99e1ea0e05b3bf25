import type { AgentCommand, EventDataOf, WorkloadSpec } from '@hcn/contracts';

/** The `run` command for a placement: what the agent needs to start the process. */
export function placementCommand(
  commandId: string,
  placed: EventDataOf<'AllocationPlaced'>,
  spec: WorkloadSpec,
): AgentCommand {
  return {
    commandId,
    nodeId: placed.nodeId,
    kind: 'run',
    placement: {
      workloadId: placed.workloadId,
      allocationId: placed.allocationId,
      instance: placed.instance,
      attempt: placed.attempt,
      command: spec.command,
      args: spec.args,
      env: spec.env,
      ...(spec.workingDir ? { workingDir: spec.workingDir } : {}),
      stopGraceSeconds: spec.stopGraceSeconds,
      ...(placed.devices ? { devices: placed.devices } : {}),
    },
  };
}
