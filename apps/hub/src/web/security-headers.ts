import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';
import helmet from 'helmet';

/** Swagger UI's pages and assets (`/docs`, `/docs/…`): its HTML carries inline `<style>` blocks. */
const DOCS = /^\/docs(\/|$)/;

/**
 * Helmet's Content-Security-Policy with what the hub serves: everything from its own origin (the dashboard's
 * bundles, the socket.io change feed, the API), images also as data: URLs, no plugins, no inline scripts. No
 * `upgrade-insecure-requests`: the hub often answers plain HTTP on an address without TLS, where that directive
 * would send the dashboard's assets to an https:// that is not there.
 */
function policy(inlineStyles: boolean) {
  return helmet({
    contentSecurityPolicy: {
      useDefaults: true,
      directives: {
        'connect-src': ["'self'"],
        'font-src': ["'self'", 'data:'],
        'style-src': inlineStyles ? ["'self'", "'unsafe-inline'"] : ["'self'"],
        'upgrade-insecure-requests': null,
      },
    },
  });
}

/**
 * Security headers on every response (helmet: CSP, nosniff, frame and referrer policies, HSTS, …) and no
 * `X-Powered-By`. The dashboard gets the strict policy; Swagger UI at /docs also may use inline styles.
 */
export function applySecurityHeaders(app: NestExpressApplication): void {
  app.disable('x-powered-by');
  const strict = policy(false);
  const docs = policy(true);
  app.use((req: Request, res: Response, next: NextFunction) =>
    (DOCS.test(req.path) ? docs : strict)(req, res, next),
  );
}
