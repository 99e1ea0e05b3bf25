import { CommandContext, requestContext } from '@hcn/commands';
import type { Actor } from '@hcn/contracts';
import { currentTraceparent } from '@hcn/platform';
import type { NextFunction, Request, Response } from 'express';
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

/** The header that carries a request's correlation id, both ways. */
export const REQUEST_ID_HEADER = 'X-Request-Id';

/** A request id a caller may choose: short, and only characters safe in logs and headers. */
const CALLER_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

const scope = new AsyncLocalStorage<string>();

/** The caller's `X-Request-Id` when it is a safe one, else a fresh UUID. */
export function requestIdFor(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  return value !== undefined && CALLER_REQUEST_ID.test(value) ? value : randomUUID();
}

/**
 * Express middleware giving every request its correlation id: the caller's `X-Request-Id` (when safe) or a new
 * one, as `req.id` (the request's log lines), the response's `X-Request-Id` and the id commands are correlated with.
 */
export function requestIds() {
  return (req: Request, res: Response, next: NextFunction): void => {
    const id = requestIdFor(req.headers['x-request-id']);
    (req as Request & { id?: string }).id = id;
    res.setHeader(REQUEST_ID_HEADER, id);
    scope.run(id, next);
  };
}

/** The id of the HTTP request being handled, if any. */
export function currentRequestId(): string | undefined {
  return scope.getStore();
}

/**
 * The context of a command an HTTP request asks for: correlated with (and caused by) the request's id (a fresh
 * one outside a request), carrying the active trace.
 */
export function httpCommandContext(
  actor: Actor,
  now: Date,
  requestId: string | undefined = currentRequestId(),
): CommandContext {
  const traceparent = currentTraceparent();
  return { ...requestContext(actor, now, requestId), ...(traceparent ? { traceparent } : {}) };
}
