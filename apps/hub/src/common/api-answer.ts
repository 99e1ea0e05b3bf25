import { z } from '@hcn/contracts';
import { SetMetadata, applyDecorators } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';

/** The operation extension that carries an answer's schema until `withApiConventions` puts it in place. */
export const ANSWER_EXTENSION = 'x-hcn-answer';

/** Metadata key of a handler's answer schema (read by the test-only answer check). */
export const ANSWER_SCHEMA = 'hcn:answer-schema';

/** An answer's schema as the document gets it: the 2xx schema (a `$ref`) and the components it names. */
export interface AnswerDocument {
  readonly schema: object;
  readonly components: Record<string, object>;
}

/**
 * The JSON Schema of an answer (as the handler's result serializes: `io: 'output'`); every schema with an `id` in
 * its `.meta` becomes a component, referenced by `#/components/schemas/<id>`.
 */
export function answerDocument(schema: z.ZodType): AnswerDocument {
  const json = z.toJSONSchema(schema, { io: 'output' }) as { $defs?: Record<string, object> } & object;
  const { $defs = {}, $schema: _dialect, ...root } = json as Record<string, unknown> & { $defs?: object };
  const rewritten = JSON.parse(
    JSON.stringify({ root, $defs }).replaceAll('"#/$defs/', '"#/components/schemas/'),
  ) as { root: object; $defs: Record<string, object> };
  return { schema: rewritten.root, components: rewritten.$defs };
}

/**
 * Declares what an operation answers on success, as a zod schema with an `id` (`.meta({ id })`): the OpenAPI
 * document references it (and the schemas it names) from the operation's 2xx; harness hubs check each answer
 * against it (`AnswerSchemaCheck`).
 */
export function ApiAnswer(schema: z.ZodType): MethodDecorator {
  return applyDecorators(
    ApiExtension(ANSWER_EXTENSION, answerDocument(schema)),
    SetMetadata(ANSWER_SCHEMA, schema),
  );
}

/** One page of a listing with typed items (`Page` of the document, `items` of `item`'s schema), named `id`. */
export function pageOf<T extends z.ZodType>(item: T, id: string) {
  return z
    .object({
      items: z.array(item).describe('this page, in the listing order'),
      nextCursor: z.string().nullable().describe('pass as `cursor` for the next page; null on the last one'),
      total: z.number().int().describe('every match'),
    })
    .meta({ id });
}
