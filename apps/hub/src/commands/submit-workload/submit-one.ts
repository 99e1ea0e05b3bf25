import type { WorkloadSpec } from '@hcn/contracts';
import type { CommandBus } from '@nestjs/cqrs';
import type { Principal } from '../../auth/principal';
import { SubmitWorkloadsCommand } from '../submit-workloads/submit-workloads.command';
import type {
  SubmitWorkloadResult,
  SubmitWorkloadsResult,
} from '../submit-workloads/submit-workloads.handler';

/** Submits one workload as a batch of one; the batch's answer for it (201 when created, else 200). */
export async function submitOne(
  commands: CommandBus,
  principal: Principal,
  spec: WorkloadSpec,
  idempotencyKey: string | null,
): Promise<SubmitWorkloadResult> {
  const command = new SubmitWorkloadsCommand(principal, [{ spec, idempotencyKey }], true);
  const result: SubmitWorkloadsResult = await commands.execute(command);
  return result.workloads[0];
}
