import type { NextFunction, Request, Response } from 'express';
import type { HubMetrics } from './metrics';

/** The route label of a request no route matched (404s, the dashboard's files): one value, so cardinality stays bounded. */
export const UNMATCHED_ROUTE = 'unmatched';

/** The route template that answered `req` (`/v1/workloads/:id`), never the raw path. */
export function routeTemplate(req: Request): string {
  const route = (req as Request & { route?: { path?: unknown } }).route;
  if (!route || route.path === undefined) return UNMATCHED_ROUTE;
  const path = Array.isArray(route.path) ? route.path.map(String).join('|') : String(route.path);
  // a catch-all (`/{*splat}`: the request-logging middleware's forRoutes('*')) is no route of the API
  if (path.includes('{*')) return UNMATCHED_ROUTE;
  return `${req.baseUrl ?? ''}${path}` || '/';
}

/** `2xx`, `4xx`, ... of an HTTP status. */
export function statusClass(status: number): string {
  return `${Math.floor(status / 100)}xx`;
}

/**
 * Express middleware that counts every request by method, route template and status class, its errors (4xx:
 * client, 5xx: server, closed before an answer: aborted) and its duration (histogram by method and route). The
 * route is read when the response ends, once the router has matched it.
 */
export function httpMetrics(metrics: HubMetrics) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const stop = process.hrtime.bigint();
    let done = false;
    const record = (aborted: boolean) => {
      if (done) return;
      done = true;
      const method = req.method;
      const route = routeTemplate(req);
      const seconds = Number(process.hrtime.bigint() - stop) / 1e9;
      metrics.httpDuration.observe({ method, route }, seconds);
      if (aborted) {
        metrics.httpErrors.inc({ method, route, kind: 'aborted' });
        return;
      }
      metrics.httpRequests.inc({ method, route, status_class: statusClass(res.statusCode) });
      if (res.statusCode >= 500) metrics.httpErrors.inc({ method, route, kind: 'server' });
      else if (res.statusCode >= 400) metrics.httpErrors.inc({ method, route, kind: 'client' });
    };
    res.once('finish', () => record(false));
    res.once('close', () => record(!res.writableFinished));
    next();
  };
}
