import { taskSpecSchema, workloadSpecSchema, z } from '@hcn/contracts';
import { taskWorkloadSpec } from '@hcn/domain';
import { Body, Controller, Inject, Param, Post, Res } from '@nestjs/common';
import type { Response } from 'express';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { randomUUID } from 'node:crypto';
import { RequireRole } from '../../auth/auth.guard';
import { CurrentPrincipal } from '../../auth/current-principal';
import type { Principal } from '../../auth/principal';
import { parseBody } from '../../common/parse-body';
import { created } from '../../common/http-conventions';
import type { HubConfig } from '../../config';
import { HUB_CONFIG } from '../../tokens';
import { checkHostPaths } from '../submit-workload/host-paths';
import { sealRedisUrls } from './seal-redis-urls';
import { TaskQueueChangeCommand, TaskQueueCommandResult, parseQueueId } from '../taskqueue-command';
import { ApiAnswer } from '../../common/api-answer';
import { taskAddedResultSchema } from '../../common/command-results';

/** Stands in for a node while a task's workload is checked before any node is chosen. */
const SOME_NODE = '00000000-0000-4000-8000-000000000000';

/** `POST /v1/taskqueues/:id/tasks`: add a task at the end of a queue. */
@ApiTags('taskqueues')
@RequireRole('operator')
@Controller('v1/taskqueues')
export class AddTaskController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(HUB_CONFIG) private readonly config: HubConfig,
  ) {}

  @Post(':id/tasks')
  @ApiAnswer(taskAddedResultSchema)
  @ApiOperation({ summary: 'Add a task (pending) at the end of the queue; `next` starts it' })
  @ApiBody({ schema: z.toJSONSchema(taskSpecSchema, { io: 'input' }) as object })
  async add(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() body: unknown,
    @Res({ passthrough: true }) res: Response,
  ): Promise<TaskQueueCommandResult & { taskId: string }> {
    const queueId = parseQueueId(id);
    const spec = sealRedisUrls(parseBody(taskSpecSchema, body, 'TASKQUEUE.TASK'), this.config);
    // what each node will run must be a valid workload too (checked once here, not when a node joins)
    const workload = parseBody(
      workloadSpecSchema,
      taskWorkloadSpec({ name: 'check', namespace: 'default', description: '' }, spec, SOME_NODE, 1),
      'TASKQUEUE.TASK',
    );
    checkHostPaths(workload, this.config.containerHostPaths);
    const taskId = randomUUID();
    const result: TaskQueueCommandResult = await this.commands.execute(
      new TaskQueueChangeCommand(principal, queueId, { type: 'AddTask', taskId, spec }),
    );
    created(res, `/v1/taskqueues/${queueId}/tasks/${taskId}`);
    return { ...result, taskId };
  }
}
