import { z } from '@hcn/contracts';
import type { OpenAPIObject } from '@nestjs/swagger';
import { ANSWER_EXTENSION, type AnswerDocument, pageOf } from './api-answer';
import { PROBLEM_CONTENT_TYPE, RETRY_AFTER_SECONDS, problemSchema } from './problem';

type Operation = {
  [ANSWER_EXTENSION]?: AnswerDocument;
  parameters?: Array<{ name: string; in: string }>;
  responses: Record<string, { description?: string; content?: object; headers?: object }>;
};

/** One page of a list whose items have no declared schema (`?limit=&cursor=`); typed lists answer `<Item>Page`. */
const pageSchema = pageOf(z.looseObject({}), 'Page');

/** Resources whose PUT and DELETE honour If-Match (412 when the stream is elsewhere). */
const IF_MATCH_PATHS = [
  '/v1/workloads/{id}',
  '/v1/domains/{id}',
  '/v1/quotas/{namespace}',
  '/v1/templates/{id}',
];

const ref = (kind: 'schemas' | 'headers' | 'responses' | 'parameters', name: string) => ({
  $ref: `#/components/${kind}/${name}`,
});

/** A component schema from its zod schema (the `Problem`, `Page` ids of their `.meta`). */
function componentOf(schema: z.ZodType, id: string): object {
  return z.toJSONSchema(schema, { io: 'output' }).$defs?.[id] as object;
}

/** Adds an answer's components to `schemas`; one id naming two different schemas is a mistake in the code. */
function addComponents(schemas: Record<string, object>, components: Record<string, object>): void {
  for (const [id, schema] of Object.entries(components)) {
    if (id in schemas && JSON.stringify(schemas[id]) !== JSON.stringify(schema))
      throw new Error(`two different answer schemas are both named ${id}`);
    schemas[id] = schema;
  }
}

/**
 * The 2xx schema of an operation: its declared answer (`@ApiAnswer`, taken out of the operation, its components
 * added), else a `Page` for a list or a free-form object.
 */
function answerSchema(operation: Operation, lists: boolean, schemas: Record<string, object>): object {
  const answer = operation[ANSWER_EXTENSION];
  delete operation[ANSWER_EXTENSION];
  if (answer) {
    addComponents(schemas, answer.components);
    return answer.schema;
  }
  return lists ? ref('schemas', 'Page') : { type: 'object', additionalProperties: true };
}

/**
 * The API's conventions written into the document: every error a `Problem` (default answer, 412 where If-Match is
 * honoured, 503 with Retry-After everywhere), each 2xx its declared answer schema (`@ApiAnswer`: typed pages
 * `<Item>Page`) or, undeclared, a `Page` for lists and a free-form object otherwise, Location on 201, ETag on
 * single-resource GETs, If-Match on the PUT/DELETEs that honour it, X-Request-Id on every answer.
 */
export function withApiConventions(document: OpenAPIObject): OpenAPIObject {
  const problem = { [PROBLEM_CONTENT_TYPE]: { schema: ref('schemas', 'Problem') } };
  const requestId = { 'X-Request-Id': ref('headers', 'X-Request-Id') };
  const schemas: Record<string, object> = {
    ...(document.components?.schemas as Record<string, object> | undefined),
    Problem: componentOf(problemSchema, 'Problem'),
    Page: componentOf(pageSchema, 'Page'),
  };
  document.components = {
    ...document.components,
    schemas,
    headers: {
      'X-Request-Id': {
        description: "the request's correlation id (the caller's when safe)",
        schema: { type: 'string' },
      },
      Location: { description: 'the URL of the created resource', schema: { type: 'string' } },
      ETag: {
        description: 'the stream revision, a strong tag: "7" ("-1": no events yet)',
        schema: { type: 'string' },
      },
      'Retry-After': { description: `seconds to wait (${RETRY_AFTER_SECONDS})`, schema: { type: 'integer' } },
    },
    parameters: {
      'If-Match': {
        name: 'If-Match',
        in: 'header',
        required: false,
        description: 'an ETag of the resource: written only when it is still at that revision, else 412',
        schema: { type: 'string' },
      },
    },
  };
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods) as Array<[string, Operation]>) {
      if (typeof operation !== 'object' || operation === null || !('responses' in operation)) continue;
      const lists = (operation.parameters ?? []).some((p) => p.name === 'cursor' && p.in === 'query');
      const answer = answerSchema(operation, lists, schemas);
      for (const [status, response] of Object.entries(operation.responses)) {
        if (!/^2\d\d$/.test(status)) continue;
        response.content ??= { 'application/json': { schema: answer } };
        const headers: Record<string, object> = { ...requestId };
        if (status === '201') headers.Location = ref('headers', 'Location');
        if (method === 'get' && /\}$/.test(path) && !lists) headers.ETag = ref('headers', 'ETag');
        response.headers = { ...response.headers, ...headers };
      }
      if (IF_MATCH_PATHS.includes(path) && (method === 'put' || method === 'delete')) {
        operation.parameters = [...(operation.parameters ?? []), ref('parameters', 'If-Match') as never];
        operation.responses['412'] = {
          description:
            'REQUEST.PRECONDITION_FAILED: the resource is not at the If-Match revision; nothing written',
          content: problem,
          headers: requestId,
        };
      }
      operation.responses['503'] = {
        description: 'the event store or the bus is unavailable: try again after Retry-After',
        content: problem,
        headers: { ...requestId, 'Retry-After': ref('headers', 'Retry-After') },
      };
      operation.responses.default = {
        description: 'an error: its status and a stable dotted code',
        content: problem,
        headers: requestId,
      };
    }
  }
  return document;
}
