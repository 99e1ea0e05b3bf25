import { HcnError, type z } from '@hcn/contracts';
import { ApiAnswer } from '../common/api-answer';
import { Controller, Get, Inject, Param, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { setEtag } from '../common/http-conventions';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { DataSource } from 'typeorm';
import { RequireRole } from '../auth/auth.guard';
import { CurrentPrincipal } from '../auth/current-principal';
import { Principal, visibleNamespaces } from '../auth/principal';
import { parseQueueId, parseTaskId } from '../commands/taskqueue-command';
import { TaskActions } from '../sagas/taskqueue/task-actions';
import { TaskProgress } from '../sagas/taskqueue/task-progress';
import { READ_MODELS } from '../tokens';
import { parseBody } from '../common/parse-body';
import { ApiQueries, pageDocs } from './list-query';
import {
  countInstances,
  listTaskQueues,
  listTaskQueuesQuerySchema,
  loadTaskQueueRow,
  taskInstances,
  taskItem,
  taskQueuePageSchema,
  taskQueueSchema,
  taskSchema,
} from './taskqueues.query';

/** `GET /v1/taskqueues[/:id[/tasks/:taskId]]`: task queues, their tasks, instances and progress. */
@ApiTags('taskqueues')
@RequireRole('viewer')
@Controller('v1/taskqueues')
export class TaskQueuesController {
  constructor(
    @Inject(READ_MODELS) private readonly db: DataSource,
    private readonly progress: TaskProgress,
    private readonly actions: TaskActions,
  ) {}

  @Get()
  @ApiOperation({ summary: 'List the task queues of the namespaces the token may see, oldest first' })
  @ApiQueries(pageDocs, listTaskQueuesQuerySchema)
  @ApiAnswer(taskQueuePageSchema)
  list(@CurrentPrincipal() principal: Principal, @Query() query: unknown) {
    const page = parseBody(listTaskQueuesQuerySchema, query, 'TASKQUEUES.QUERY');
    return listTaskQueues(this.db, visibleNamespaces(principal), page);
  }

  @Get(':id')
  @ApiOperation({ summary: 'One task queue: its tasks, the running one with instance counts and progress' })
  @ApiAnswer(taskQueueSchema)
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Res({ passthrough: true }) res: Response,
  ): Promise<z.output<typeof taskQueueSchema>> {
    const row = await loadTaskQueueRow(this.db, principal, parseQueueId(id));
    setEtag(res, row.last_revision);
    const { state } = row;
    const running = state.tasks.find((t) => t.taskId === state.current);
    const tasks = await Promise.all(
      state.tasks.map(async (t) => {
        const item = taskItem(t);
        if (t.taskId !== running?.taskId)
          return { ...item, progress: this.progress.progressOf(t.taskId) ?? null };
        const nodes = await taskInstances(this.db, t);
        return {
          ...item,
          instances: countInstances(nodes, t.launches),
          progress: this.progress.progressOf(t.taskId) ?? null,
        };
      }),
    );
    return {
      queueId: row.queue_id,
      name: row.name,
      namespace: row.namespace,
      description: state.definition?.description ?? '',
      status: row.status,
      currentTask: running?.taskId ?? null,
      tasks,
      problem: this.actions.problemOf(row.queue_id) ?? null,
      createdAt: new Date(row.created_at).toISOString(),
      updatedAt: new Date(row.updated_at).toISOString(),
    };
  }

  @Get(':id/tasks/:taskId')
  @ApiOperation({
    summary: "One task: its current round's instances per node (INSTANCE_ID order) and progress",
  })
  @ApiAnswer(taskSchema)
  async task(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Param('taskId') taskId: string,
  ): Promise<z.output<typeof taskSchema>> {
    const row = await loadTaskQueueRow(this.db, principal, parseQueueId(id));
    const wanted = parseTaskId(taskId);
    const task = row.state.tasks.find((t) => t.taskId === wanted);
    if (!task)
      throw new HcnError('TASKQUEUE.TASK_NOT_FOUND', `Task ${wanted} is not in this queue`, {
        taskId: wanted,
      });
    const nodes = await taskInstances(this.db, task);
    return {
      ...taskItem(task),
      instances: countInstances(nodes, task.launches),
      nodes,
      progress: this.progress.progressOf(task.taskId) ?? null,
    };
  }
}
