import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { NodeResources, RegisterNodeRequest, RegisterNodeResponse } from '@hcn/contracts';

/** Error answer of the hub. */
export class HubRequestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The hub's answer about the calling node; older hubs leave out the cadence. */
export interface AgentSelf {
  readonly nodeId: string;
  readonly status: string;
  readonly heartbeatIntervalSeconds?: number;
  readonly nodeTtlSeconds?: number;
}

/** How long one request to the hub may take. */
const REQUEST_TIMEOUT_MS = 10000;

/**
 * The agent's HTTP client of the hub (registration and self-lookup). It speaks `node:http` rather than the global
 * `fetch`: loading fetch (undici and its WebAssembly parser) costs an idle agent about 19 MiB of RSS.
 */
export class HubClient {
  constructor(private readonly baseUrl: string) {}

  /** Registers (or re-registers, presenting its credential or a re-enrolment token) this node. */
  async register(request: RegisterNodeRequest, token?: string): Promise<RegisterNodeResponse> {
    return this.call<RegisterNodeResponse>('POST', '/v1/agents/register', request, token);
  }

  /** True when the hub knows this node; false when it answers NODE.NOT_FOUND (the hub forgot it). */
  async knowsMe(credential: string): Promise<boolean> {
    return (await this.whoAmI(credential)) !== undefined;
  }

  /**
   * The hub's answer about this node (with the heartbeat cadence it is to keep now, from hubs that scale it);
   * undefined when the hub answers NODE.NOT_FOUND (it forgot the node).
   */
  async whoAmI(credential: string): Promise<AgentSelf | undefined> {
    try {
      return await this.call<AgentSelf>('GET', '/v1/agents/me', undefined, credential);
    } catch (error) {
      if (error instanceof HubRequestError && error.code === 'NODE.NOT_FOUND') return undefined;
      throw error;
    }
  }

  private async call<T>(method: string, path: string, body?: unknown, credential?: string): Promise<T> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const { status, text } = await send(new URL(`${this.baseUrl}${path}`), method, payload, credential);
    const json = parseJson(text) as { code?: string; detail?: string }; // an error is an RFC 9457 problem
    if (status < 200 || status >= 300) {
      throw new HubRequestError(status, json.code ?? `HTTP.${status}`, json.detail ?? `HTTP ${status}`);
    }
    return json as T;
  }
}

/**
 * One request over `node:http(s)` (keep-alive by default); resolves with the status and the whole body, rejects on
 * a network error or the timeout.
 */
export function send(
  url: URL,
  method: string,
  payload: string | undefined,
  credential: string | undefined,
): Promise<{ status: number; text: string }> {
  const headers: Record<string, string> = {};
  if (payload !== undefined) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(Buffer.byteLength(payload));
  }
  if (credential) headers.authorization = `Bearer ${credential}`;
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      { method, headers, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) },
      (res) => readBody(res).then((text) => resolve({ status: res.statusCode ?? 0, text }), reject),
    );
    outgoing.on('error', reject);
    outgoing.end(payload);
  });
}

function readBody(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', reject);
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}

/** Resources plus what the agent config adds, as the register request wants them. */
export type Registration = NodeResources & Pick<RegisterNodeRequest, 'domainId' | 'labels' | 'isHead'>;
