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

/** The agent's HTTP client of the hub (registration and self-lookup). */
export class HubClient {
  constructor(private readonly baseUrl: string) {}

  /** Registers (or re-registers) this node. */
  async register(request: RegisterNodeRequest): Promise<RegisterNodeResponse> {
    return this.call<RegisterNodeResponse>('POST', '/v1/agents/register', request);
  }

  /** True when the hub knows this node; false when it answers NODE.NOT_FOUND (the hub forgot it). */
  async knowsMe(credential: string): Promise<boolean> {
    try {
      await this.call('GET', '/v1/agents/me', undefined, credential);
      return true;
    } catch (error) {
      if (error instanceof HubRequestError && error.code === 'NODE.NOT_FOUND') return false;
      throw error;
    }
  }

  private async call<T>(method: string, path: string, body?: unknown, credential?: string): Promise<T> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: {
        ...(body ? { 'content-type': 'application/json' } : {}),
        ...(credential ? { authorization: `Bearer ${credential}` } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(10000),
    });
    const json = (await response.json().catch(() => ({}))) as { error?: { code: string; message: string } };
    if (!response.ok) {
      throw new HubRequestError(
        response.status,
        json.error?.code ?? `HTTP.${response.status}`,
        json.error?.message ?? response.statusText,
      );
    }
    return json as T;
  }
}

/** Resources plus what the agent config adds, as the register request wants them. */
export type Registration = NodeResources & Pick<RegisterNodeRequest, 'domainId' | 'labels' | 'isHead'>;
