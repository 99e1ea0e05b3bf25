import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { SiteTls } from './federation.config';

/** How long one call to another site may take. */
const SITE_REQUEST_TIMEOUT_MS = 10_000;
/** Largest answer read from another site. */
const MAX_ANSWER_BYTES = 8 * 2 ** 20;

/** Another site's answer: HTTP status and parsed JSON body (undefined when empty or not JSON). */
export interface SiteAnswer {
  readonly status: number;
  readonly body: unknown;
}

/** A refusal or failure of a call to another site, with the site's dotted code when it gave one. */
export class SiteCallError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Calls another site's federation API over HTTP(S): JSON in and out, a bearer credential when given, this site's
 * CA / client certificate when configured (mTLS), a time limit, a size limit on the answer.
 */
export async function callSite(
  url: string,
  method: 'GET' | 'POST',
  body: unknown,
  options: { tls: SiteTls; bearer?: string; timeoutMs?: number },
): Promise<SiteAnswer> {
  const target = new URL(url);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const headers: Record<string, string> = { accept: 'application/json' };
  if (payload !== undefined) headers['content-type'] = 'application/json';
  if (options.bearer) headers.authorization = `Bearer ${options.bearer}`;
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      target,
      { method, headers, timeout: options.timeoutMs ?? SITE_REQUEST_TIMEOUT_MS, ...options.tls },
      (res) => void readAnswer(res).then(resolve, reject),
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${url}: no answer in time`)));
    req.on('error', reject);
    req.end(payload);
  });
}

async function readAnswer(res: IncomingMessage): Promise<SiteAnswer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res) {
    size += (chunk as Buffer).length;
    if (size > MAX_ANSWER_BYTES) throw new Error('answer too large');
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: res.statusCode ?? 0, body };
}

/** The answer's JSON body when it is a 2xx; throws SiteCallError with the site's code otherwise. */
export function okBody<T>(answer: SiteAnswer, what: string): T {
  if (answer.status >= 200 && answer.status < 300) return answer.body as T;
  const problem = (answer.body ?? {}) as {
    code?: string;
    detail?: string;
    error?: { code?: string; message?: string };
  };
  const code = problem.code ?? problem.error?.code ?? `HTTP.${answer.status}`;
  const message = problem.detail ?? problem.error?.message ?? `status ${answer.status}`;
  throw new SiteCallError(answer.status, code, `${what}: ${code}: ${message}`);
}
