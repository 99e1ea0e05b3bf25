import { Logger, SpanAttributes, startSpan, traceLogFields, tracingActive } from '@hcn/platform';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pinoHttp } from 'pino-http';
import { routeTemplate } from './http-metrics';

/** Paths probed or scraped all the time: answered without a log line (their failures are still logged). */
const QUIET_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

type LoggedRequest = IncomingMessage & { id?: string; originalUrl?: string; traceFields?: object };

const pathOf = (req: LoggedRequest): string => (req.originalUrl ?? req.url ?? '/').split('?')[0];

/**
 * One log line per answered request (pino-http): `requestId`, method, path (never the query or headers: tokens
 * travel there), status and `responseTime`; 5xx at error, the rest at info, probes and scrapes only
 * when they fail. `req.log` (and so Nest's Logger inside a request) carries the `requestId`.
 */
export function requestLogging(logger: Logger): RequestHandler {
  return pinoHttp({
    logger,
    genReqId: (req) => (req as LoggedRequest).id ?? '',
    quietReqLogger: true,
    customAttributeKeys: { reqId: 'requestId' },
    serializers: {
      req: (req: LoggedRequest) => ({ method: req.method, path: pathOf(req) }),
      res: (res: ServerResponse) => ({ statusCode: res.statusCode }),
    },
    customProps: (req) => (req as LoggedRequest).traceFields ?? {},
    autoLogging: { ignore: (req) => QUIET_PATHS.has(pathOf(req as LoggedRequest)) },
    customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : 'info'),
    customSuccessMessage: (req, res) => `${req.method} ${pathOf(req as LoggedRequest)} ${res.statusCode}`,
    customErrorMessage: (req, res) => `${req.method} ${pathOf(req as LoggedRequest)} ${res.statusCode}`,
  }) as unknown as RequestHandler;
}

/**
 * Express middleware giving each request a server span (child of the caller's `traceparent`), named by its route
 * template once routing has found it; a pass-through when tracing is off.
 */
export function httpTracing(): RequestHandler {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (!tracingActive()) return next();
    const header = req.headers.traceparent;
    const span = startSpan(`${req.method}`, {
      kind: 'server',
      parent: typeof header === 'string' ? header : undefined,
      attributes: {
        'http.request.method': req.method,
        'url.path': req.path,
        'hcn.request_id': (req as LoggedRequest).id,
      },
    });
    res.once('finish', () => {
      const route = routeTemplate(req);
      span.rename(`${req.method} ${route}`);
      const attributes: SpanAttributes = { 'http.route': route, 'http.response.status_code': res.statusCode };
      span.end(res.statusCode >= 500 ? { attributes, error: `HTTP ${res.statusCode}` } : { attributes });
    });
    span.run(() => {
      (req as LoggedRequest).traceFields = traceLogFields();
      next();
    });
  };
}
