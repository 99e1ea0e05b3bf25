import { HcnError } from '@hcn/contracts';
import { workloadListItem, workloadListItemSchema } from '@hcn/read-models';
import type { CallHandler, ExecutionContext } from '@nestjs/common';
import { firstValueFrom, of } from 'rxjs';
import { ApiAnswer } from './api-answer';
import { AnswerSchemaCheck, answerViolations } from './answer-check';
import { statusForError } from './error-status';

const row = {
  workload_id: '5f0c2f8e-8d7e-4d59-9a8e-3f7c0e0f4a11',
  namespace: 'team-a',
  name: 'train',
  type: 'job',
  status: 'running' as const,
  priority: 0,
  replicas: 1,
  generation: 1,
  instances: [],
  hops: 2,
  stop_requested: false,
  deleted: false,
  submitted_at: '2025-01-01T00:00:00.000Z',
  updated_at: '2025-01-01T00:00:01.000Z',
  resources: { cpuMillis: 500, memoryBytes: 1024 },
};

class Controller {
  @ApiAnswer(workloadListItemSchema)
  answer(body: unknown): unknown {
    return body;
  }
}

/** Runs the check on what `Controller.answer` returns. */
async function checked(body: unknown): Promise<unknown> {
  const context = {
    getHandler: () => Controller.prototype.answer,
    getClass: () => Controller,
  } as unknown as ExecutionContext;
  const next: CallHandler = { handle: () => of(body) };
  return firstValueFrom(new AnswerSchemaCheck().intercept(context, next));
}

describe('answers checked against their documented schemas (harness hubs)', () => {
  it('passes an answer as the code builds it (the list item of a workload row)', async () => {
    const item = workloadListItem(row);
    expect(answerViolations(workloadListItemSchema, item)).toEqual([]);
    await expect(checked(item)).resolves.toBe(item);
  });

  it('names a member that is missing or of another type', () => {
    const { hops: _hops, ...missing } = workloadListItem(row);
    expect(answerViolations(workloadListItemSchema, missing)).toEqual([expect.stringMatching(/^hops: /)]);
    const wrong = { ...workloadListItem(row), status: 'sleeping' };
    expect(answerViolations(workloadListItemSchema, wrong)).toEqual([expect.stringMatching(/^status: /)]);
  });

  it('refuses members the schema does not declare (the document would not show them)', () => {
    const extra = { ...workloadListItem(row), secret: 'x' };
    expect(answerViolations(workloadListItemSchema, extra)).toEqual([
      'the answer has members its schema does not declare',
    ]);
  });

  it('turns a drifted answer into 500 API.ANSWER_SCHEMA naming the operation and what differs', async () => {
    const error = await checked({ ...workloadListItem(row), hops: 'two' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HcnError);
    expect((error as HcnError).code).toBe('API.ANSWER_SCHEMA');
    expect((error as HcnError).message).toBe('Controller.answer answered outside its schema');
    expect((error as HcnError).details).toEqual({ violations: [expect.stringMatching(/^hops: /)] });
    expect(statusForError(error as HcnError)).toBe(500);
  });
});
