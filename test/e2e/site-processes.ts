import { AppProcess, TestDatabase, eventually } from '@hcn/testing';

/** The admin token of every hub these specs start. */
export const ADMIN_TOKEN = 'e2e-admin-token-0123456789';
/** The node join token of every hub these specs start. */
export const JOIN_TOKEN = 'e2e-join-token-0123456789';

/** A hub as its own OS process on its own database (the in-process bus: a site's bus is its own). */
export function hubProcess(
  name: string,
  db: TestDatabase,
  port: number,
  env: Record<string, string>,
): AppProcess {
  return new AppProcess(name, 'apps/hub/src/main.ts', {
    DATABASE_URL: db.url,
    HCN_HTTP_PORT: String(port),
    HCN_JOIN_TOKEN: JOIN_TOKEN,
    HCN_AGENT_SECRET: `e2e-agent-secret-of-${name}-0123456789-0123456789`,
    HCN_ADMIN_TOKEN: ADMIN_TOKEN,
    HCN_FEDERATION_LIVENESS_SWEEP_MS: '200',
    LOG_LEVEL: 'warn',
    ...env,
  });
}

/** One call to a hub as its admin (or with `headers` instead): status and JSON body. */
export async function call(
  url: string,
  method: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any }> {
  const response = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/** Waits until a hub process answers /readyz (failing at once when it exited). */
export async function ready(hub: AppProcess, url: string): Promise<void> {
  await eventually(
    `${hub.name} ready`,
    async () => {
      if (hub.exitCode !== undefined) throw new Error(`${hub.name} exited ${hub.exitCode}: ${hub.output}`);
      return (await fetch(`${url}/readyz`).catch(() => undefined))?.status === 200;
    },
    90_000,
  );
}
