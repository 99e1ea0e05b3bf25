import type { SubscriptionHealth, SubscriptionStatus } from '@hcn/eventstore';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, join } from 'node:path';
import { Gauge, Registry } from 'prom-client';
import { z } from 'zod';
import { parseConfig } from './config';

/** HCN's version: HCN_VERSION when set, else the version of the repository's package.json (walking up from here). */
export function hcnVersion(env: NodeJS.ProcessEnv = process.env): string {
  if (env.HCN_VERSION) return env.HCN_VERSION;
  for (let dir = __dirname; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      try {
        const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
        if (pkg.name === 'hcn' && pkg.version) return pkg.version;
      } catch {
        // an unreadable package.json on the way up is skipped
      }
    }
    if (dirname(dir) === dir) return 'unknown';
  }
}

/**
 * Registers `hcn_build_info{app, version, commit, node}` = 1: the commit from HCN_BUILD_COMMIT (empty, hence absent
 * in Prometheus, when unset), node the Node.js version.
 */
export function registerBuildInfo(
  registry: Registry,
  app: string,
  env: NodeJS.ProcessEnv = process.env,
): Gauge {
  const gauge = new Gauge({
    name: 'hcn_build_info',
    help: 'Build of this HCN process (always 1): app, version, commit and Node.js version',
    labelNames: ['app', 'version', 'commit', 'node'],
    registers: [registry],
  });
  gauge.set({ app, version: hcnVersion(env), commit: env.HCN_BUILD_COMMIT ?? '', node: process.version }, 1);
  return gauge;
}

/** Registers one gauge per figure of the supervised subscriptions, read from `health` at each scrape. */
export function registerSubscriptionMetrics(registry: Registry, health: SubscriptionHealth): void {
  const gauge = (name: string, help: string, value: (s: SubscriptionStatus) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['subscription'],
      registers: [registry],
      collect() {
        this.reset();
        for (const s of health.statuses()) this.set({ subscription: s.name }, value(s));
      },
    });
  gauge('hcn_subscription_failing', '1 while the subscription retries a failed handler', (s) =>
    s.state === 'retrying' ? 1 : 0,
  );
  gauge('hcn_subscription_failures', 'Handler failures in a row', (s) => s.failures);
  gauge(
    'hcn_subscription_lag_seconds',
    "From the last handled event's append to its handling",
    (s) => s.lagMs / 1000,
  );
  gauge(
    'hcn_subscription_position',
    'Commit position in the log of the last event handled (-1 before the first)',
    (s) => (s.handledCommit === undefined ? -1 : Number(s.handledCommit)),
  );
  gauge(
    'hcn_subscription_parked_events',
    'Events set aside because their data is invalid',
    (s) => s.parkedCount,
  );
}

/** Where a process's own metrics listener answers (HCN_METRICS_HOST/PORT). */
export interface MetricsAddress {
  readonly host: string;
  readonly port: number;
}

const metricsSchema = z
  .object({
    HCN_METRICS_HOST: z.preprocess((v) => (v === '' ? undefined : v), z.string().min(1).optional()),
    HCN_METRICS_PORT: z.preprocess(
      (v) => (v === '' ? undefined : v),
      z.coerce
        .number()
        .int('HCN_METRICS_PORT: a port number, 0 to 65535')
        .min(0, 'HCN_METRICS_PORT: a port number, 0 to 65535')
        .max(65535, 'HCN_METRICS_PORT: a port number, 0 to 65535')
        .optional(),
    ),
  })
  .refine((c) => c.HCN_METRICS_HOST === undefined || c.HCN_METRICS_PORT !== undefined, {
    message: 'HCN_METRICS_HOST needs HCN_METRICS_PORT (the metrics listener is on only when its port is set)',
    path: ['HCN_METRICS_HOST'],
  });

/**
 * The metrics listener of `app` from HCN_METRICS_PORT (off when unset) and HCN_METRICS_HOST (default 127.0.0.1);
 * throws ConfigError for a bad value.
 */
export function loadMetricsAddress(app: string, env: NodeJS.ProcessEnv): MetricsAddress | undefined {
  const c = parseConfig(app, metricsSchema, env);
  if (c.HCN_METRICS_PORT === undefined) return undefined;
  return { host: c.HCN_METRICS_HOST ?? '127.0.0.1', port: c.HCN_METRICS_PORT };
}

/** A running metrics listener. */
export interface MetricsServer {
  readonly url: string;
  close(): Promise<void>;
}

/** Serves `registry` at GET /metrics on `address` (anything else: 404); rejects when the address cannot be bound. */
export function startMetricsServer(address: MetricsAddress, registry: Registry): Promise<MetricsServer> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (error: Error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`${error.message}\n`),
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(address.port, address.host, () => {
      server.off('error', reject);
      const { port } = server.address() as { port: number };
      const host = address.host.includes(':') ? `[${address.host}]` : address.host;
      resolve({
        url: `http://${host}:${port}`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
