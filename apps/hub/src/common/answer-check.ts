import { HcnError, type z } from '@hcn/contracts';
import type { CallHandler, ExecutionContext, NestInterceptor } from '@nestjs/common';
import { isDeepStrictEqual } from 'node:util';
import { map, type Observable } from 'rxjs';
import { ANSWER_SCHEMA } from './api-answer';

/** What an answer's JSON breaks of its schema: zod's issues, or the members the schema does not name. */
export function answerViolations(schema: z.ZodType, body: unknown): string[] {
  const json: unknown = body === undefined ? undefined : JSON.parse(JSON.stringify(body));
  const parsed = schema.safeParse(json);
  if (!parsed.success)
    return parsed.error.issues.map((i) => `${i.path.join('.') || '(answer)'}: ${i.message}`);
  // the document says which members there are: one the schema leaves out (or adds) is a difference too
  return isDeepStrictEqual(parsed.data, json) ? [] : ['the answer has members its schema does not declare'];
}

/**
 * Test-only (harness hubs): every answer of an operation declared with `@ApiAnswer` must parse with its schema and
 * hold nothing the schema leaves out; one that does not becomes a 500 `API.ANSWER_SCHEMA` naming what differs, so
 * a spec fails where the document and the code drifted apart. Not installed in production.
 */
export class AnswerSchemaCheck implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const schema = Reflect.getMetadata(ANSWER_SCHEMA, context.getHandler()) as z.ZodType | undefined;
    if (!schema) return next.handle();
    return next.handle().pipe(
      map((body: unknown) => {
        const violations = answerViolations(schema, body);
        if (violations.length === 0) return body;
        const operation = `${context.getClass().name}.${context.getHandler().name}`;
        throw new HcnError('API.ANSWER_SCHEMA', `${operation} answered outside its schema`, {
          violations: violations.slice(0, 20),
        });
      }),
    );
  }
}
