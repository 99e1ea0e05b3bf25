import { Controller, Get, Header, INestApplication } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { ApiExcludeController } from '@nestjs/swagger';
import { static as serveStatic, type NextFunction, type Request, type Response } from 'express';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Public } from '../auth/auth.guard';

/**
 * Where the built dashboard (`npm run build:web`, Vite: apps/web -> dist/web) lies: HCN_WEB_DIR, or dist/web
 * beside the sources (apps/hub/src/web -> ../../../../dist/web) or beside the compiled hub (dist/apps/... -> dist/web).
 */
export function dashboardDir(): string | undefined {
  const candidates = [
    process.env.HCN_WEB_DIR,
    resolve(__dirname, '..', '..', '..', '..', 'dist', 'web'),
    resolve(__dirname, '..', '..', '..', '..', 'web'),
  ];
  return candidates.find((dir): dir is string => !!dir && existsSync(join(dir, 'index.html')));
}

/** Paths the API, its docs, metrics and the change feed answer: never files of the dashboard. */
const NOT_FILES = /^\/(v1|docs|metrics|healthz|readyz|socket\.io)(\/|$)/;

/**
 * Serves the built dashboard's files (index.html at `/`, hashed bundles under `/assets`, cached for good). API
 * requests skip the file lookup: it cost each of them a `stat` of a file that is not there.
 */
export function serveDashboard(app: INestApplication): void {
  const dir = dashboardDir();
  if (!dir) return;
  const files = serveStatic(dir, {
    index: 'index.html',
    setHeaders: (res, path) =>
      res.setHeader(
        'cache-control',
        path.includes(`${join(dir, 'assets')}`) ? 'public, max-age=31536000, immutable' : 'no-cache',
      ),
  });
  (app as NestExpressApplication).use((req: Request, res: Response, next: NextFunction) =>
    NOT_FILES.test(req.path) ? next() : files(req, res, next),
  );
}

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>HCN</title>
<p>The dashboard has not been built. Run <code>npm run build:web</code> (<code>npm start</code> and
<code>npm run build</code> do it by themselves), then reload. The API is at <a href="/docs">/docs</a>.</p>`;

/** Answers `/` when the dashboard was not built (otherwise the static files answer first). */
@ApiExcludeController()
@Public()
@Controller()
export class DashboardController {
  @Get()
  @Header('content-type', 'text/html; charset=utf-8')
  page(): string {
    return NOT_BUILT;
  }
}
