import { CliError, EXIT, usageError } from './errors';

/** Where the hub is and who calls it: `--addr`/`HCN_ADDR`, `--token`/`HCN_TOKEN`. */
export interface HubSettings {
  readonly addr: string;
  readonly token?: string;
  /** Milliseconds to wait for an answer. */
  readonly timeoutMs: number;
}

/** The hub's address when neither `--addr` nor `HCN_ADDR` names one. */
export const DEFAULT_ADDR = 'http://127.0.0.1:8080';

/** Query parameters; arrays repeat the parameter, undefined ones are left out. */
export type Query = Record<string, string | number | boolean | readonly string[] | undefined>;

/** One request to the hub's REST API. */
export interface HubRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  readonly path: string;
  readonly query?: Query;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
}

/** A successful answer: status, parsed body and headers. */
export interface HubAnswer<T = unknown> {
  readonly status: number;
  readonly body: T;
  readonly headers: Headers;
}

/** One page of a listing: every list of the API answers so to `?limit=&cursor=`. */
export interface ListPage<T> {
  readonly items: T[];
  readonly nextCursor: string | null;
  readonly total?: number;
}

/** The fetch the client uses (the global one; specs pass a recording one). */
export type Fetch = (url: string, init: RequestInit) => Promise<Response>;

/** Checks and normalizes a hub address: http(s) URL, no trailing slash. */
export function hubAddress(addr: string): string {
  let url: URL;
  try {
    url = new URL(addr);
  } catch {
    throw usageError(`--addr/HCN_ADDR must be an http(s) URL, got '${addr}'`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw usageError(`--addr/HCN_ADDR must be an http(s) URL, got '${addr}'`);
  return url.toString().replace(/\/+$/, '');
}

/** `?a=1&b=x&b=y` from a query object. */
export function queryString(query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) params.append(name, String(item));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/**
 * The code and message of an error answer: the hub's RFC 9457 problem (`code` extension member, `detail`, else
 * `title`), else `HTTP.<status>` with the start of the body.
 */
export function errorOfAnswer(status: number, text: string): { code: string; message: string } {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const b = (body ?? {}) as Record<string, unknown>;
  const code = typeof b.code === 'string' ? b.code : undefined;
  const message = [b.detail, b.title].find((m) => typeof m === 'string') as string | undefined;
  const fallback = text.trim().replace(/\s+/g, ' ').slice(0, 200) || `HTTP ${status}`;
  return { code: code ?? `HTTP.${status}`, message: message ?? fallback };
}

/** Statuses that say the hub is there but cannot serve now (exit 3, like an unreachable hub). */
const UNAVAILABLE = new Set([502, 503, 504]);

/** A small client of the hub's REST API: bearer token, JSON in and out, errors as CliError. */
export class HubClient {
  readonly addr: string;

  constructor(
    private readonly settings: HubSettings,
    private readonly fetchFn: Fetch = (url, init) => fetch(url, init),
  ) {
    this.addr = hubAddress(settings.addr);
  }

  /** Sends the request; resolves with a 2xx answer, else throws CliError (API error, unreachable hub). */
  async request<T = unknown>(req: HubRequest): Promise<HubAnswer<T>> {
    const url = `${this.addr}${req.path}${queryString(req.query)}`;
    const headers: Record<string, string> = { accept: 'application/json', ...req.headers };
    if (this.settings.token) headers.authorization = `Bearer ${this.settings.token}`;
    if (req.body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    let text: string;
    try {
      response = await this.fetchFn(url, {
        method: req.method,
        headers,
        body: req.body === undefined ? undefined : JSON.stringify(req.body),
        signal: AbortSignal.timeout(this.settings.timeoutMs),
      });
      text = await response.text();
    } catch (error) {
      throw new CliError('CLI.HUB_UNREACHABLE', this.unreachable(error), EXIT.UNREACHABLE);
    }
    if (response.status >= 400) {
      const { code, message } = errorOfAnswer(response.status, text);
      throw new CliError(code, message, UNAVAILABLE.has(response.status) ? EXIT.UNREACHABLE : EXIT.ERROR);
    }
    let body: unknown = text;
    if (text) {
      try {
        body = JSON.parse(text);
      } catch {
        // not JSON: returned as text
      }
    }
    return { status: response.status, body: body as T, headers: response.headers };
  }

  /** GET and return the body. */
  async get<T = unknown>(path: string, query?: Query): Promise<T> {
    return (await this.request<T>({ method: 'GET', path, query })).body;
  }

  /**
   * GET every item of a listing: its pages of 1,000 (`?limit=&cursor=`) followed by their `nextCursor` to the end;
   * answers `{ items, nextCursor: null, total }` as one page holding them all.
   */
  async getAll<T = unknown>(path: string, query: Query = {}): Promise<ListPage<T>> {
    const items: T[] = [];
    let total: number | undefined;
    for (let cursor: string | undefined; ;) {
      const page = await this.get<ListPage<T>>(path, { ...query, limit: 1000, cursor });
      items.push(...(Array.isArray(page?.items) ? page.items : []));
      total ??= page?.total;
      if (!page?.nextCursor) return { items, nextCursor: null, ...(total === undefined ? {} : { total }) };
      cursor = page.nextCursor;
    }
  }

  private unreachable(error: unknown): string {
    const e = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
    if (e?.name === 'TimeoutError' || e?.name === 'AbortError')
      return `no answer from the hub at ${this.addr} within ${this.settings.timeoutMs / 1000} s`;
    const why = e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(error);
    return `cannot reach the hub at ${this.addr} (${why})`;
  }
}

/** A path segment from user input, escaped. */
export function seg(value: string): string {
  return encodeURIComponent(value);
}
