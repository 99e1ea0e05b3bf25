// REST client of the dashboard: every call carries the API token (from the URL fragment) as a Bearer token.

const TOKEN_KEY = 'hcn.token';

/** Takes `#token=...` from the URL (then drops it from the address bar), or the token kept for this tab. */
export function takeToken(): string | null {
  const match = /(?:^#|&)token=([^&]+)/.exec(window.location.hash);
  if (match) {
    const token = decodeURIComponent(match[1]);
    sessionStorage.setItem(TOKEN_KEY, token);
    history.replaceState(null, '', `${window.location.pathname}#/`);
    return token;
  }
  return sessionStorage.getItem(TOKEN_KEY);
}

/** Keeps a token typed into the sign-in form. */
export function keepToken(token: string): void {
  sessionStorage.setItem(TOKEN_KEY, token);
}

/** Forgets the token (sign out, or refused by the hub). */
export function forgetToken(): void {
  sessionStorage.removeItem(TOKEN_KEY);
}

/** An error answer of the API: an RFC 9457 problem's status, dotted `code` and `detail`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

let currentToken = '';

/** Sets the token later calls present. */
export function setApiToken(token: string): void {
  currentToken = token;
}

/** The token calls present. */
export function token(): string {
  return currentToken;
}

/** The refusal of an answer: its problem+json `code` extension and `detail` (`title`, else the status text). */
function refusal(response: Response, body: unknown): ApiError {
  const b = (body ?? {}) as { code?: string; detail?: string; title?: string };
  const code = b.code ?? `HTTP.${response.status}`;
  const message = b.detail ?? b.title ?? response.statusText;
  return new ApiError(response.status, code, message);
}

/** Sends a request to the hub (a JSON body when given); refusals throw an ApiError with the API's code and message. */
export async function send<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { authorization: `Bearer ${currentToken}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = await response.json().catch(() => null);
  if (!response.ok) throw refusal(response, answer);
  return answer as T;
}

/** GET a JSON resource of the hub. */
export function get<T>(path: string): Promise<T> {
  return send<T>('GET', path);
}

/** One page of an API listing: every list answers `{ items, nextCursor, total }` to `?limit=&cursor=`. */
export interface ListPage<T> {
  items: T[];
  nextCursor: string | null;
  total?: number;
}

/** `path` with `limit` and, when given, `cursor` added to its query. */
export function pagePath(path: string, limit: number, cursor?: string | null): string {
  const join = path.includes('?') ? '&' : '?';
  return `${path}${join}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
}

/** Every item of a listing: its pages of 1,000 followed by their `nextCursor` to the end. */
export async function getAll<T>(path: string): Promise<T[]> {
  const items: T[] = [];
  for (let cursor: string | null = null; ;) {
    const page: ListPage<T> = await get<ListPage<T>>(pagePath(path, 1000, cursor));
    items.push(...page.items);
    if (!page.nextCursor) return items;
    cursor = page.nextCursor;
  }
}

/** POST to the hub (a JSON body, `{}` when none). */
export function post<T>(path: string, body: unknown = {}): Promise<T> {
  return send<T>('POST', path, body);
}

/** The text a refusal shows: `CODE: message`. */
export function refusalText(e: unknown): string {
  return e instanceof ApiError ? `${e.code}: ${e.message}` : e instanceof Error ? e.message : String(e);
}

/** Roles in increasing power, as the API ranks them. */
const ROLES = ['viewer', 'operator', 'admin'];

/** True when the session's role is `role` or above (the API's own check decides; this only hides buttons). */
export function hasRole(session: Session, role: 'operator' | 'admin'): boolean {
  return ROLES.indexOf(session.role) >= ROLES.indexOf(role);
}

/** A parameter of a job template. */
export interface TemplateParameter {
  name: string;
  description: string;
  default?: string;
}

/** A job template (GET /v1/templates). */
export interface Template {
  templateId: string;
  namespace: string;
  description: string;
  parameters: TemplateParameter[];
  spec: Record<string, unknown>;
}

/** What a submission answers. */
export interface SubmitResult {
  workloadId: string;
  created: boolean;
}

/** The caller's token as the hub sees it. */
export interface Session {
  name: string;
  role: string;
  namespaces: string[];
}

/** A device of a node. */
export interface Device {
  index: number;
  vendor: string;
  model: string;
  memoryBytes?: number;
  health: number;
  /** Who holds it now: whole, or memory slices (absent on hubs that do not report it). */
  allocation?: { wholeDevice: boolean; allocationId: string | null; slices: Array<{ memoryBytes: number }> };
}

/** A node (GET /v1/nodes). */
export interface Node {
  nodeId: string;
  domainId: string;
  hostname: string;
  cpuCores: number;
  memoryBytes: number;
  accelerators: number;
  devices: Device[];
  labels: Record<string, string>;
  isHead: boolean;
  status: string;
  draining: boolean;
  lastSeenAt: string | null;
  usage: { cpuUsage: number; memoryUsedBytes: number; diskUsedBytes: number } | null;
  /** What runs on it: idle, running (active allocations), error (its last one failed); absent on older hubs. */
  runtime?: NodeRuntime;
}

/** A node's runtime state (GridCore's runtime status). */
export interface NodeRuntime {
  state: 'idle' | 'running' | 'error';
  activeInstances: number;
  lastError?: { allocationId: string; workloadId: string; reason: string; at: string };
}

/** A domain summary (GET /v1/domains). */
export interface Domain {
  domainId: string;
  nodes: { online: number; offline: number; draining: number };
  capacity: {
    cpuCores: { total: number; available: number };
    memoryBytes: { total: number; available: number };
    /** Accelerator devices (hubs that do not report them leave it out). */
    accelerators?: { total: number; allocated?: number };
  };
  reserved: { cpuMillis: number; memoryBytes: number; accelerators: number };
  definition: { parentId: string | null; region?: string; policy?: unknown } | null;
}

/** An instance of a workload. */
export interface Instance {
  instance: number;
  attempt: number;
  status: string;
  allocationId: string | null;
  nodeId: string | null;
}

/** A workload in the list (GET /v1/workloads). */
export interface WorkloadItem {
  workloadId: string;
  namespace: string;
  name: string;
  type: string;
  status: string;
  replicas: number;
  instances: Instance[];
  hops: number;
  submittedAt: string;
  updatedAt: string;
}

/** A candidate a scope considered, with why it was filtered out or how it scored. */
export interface Candidate {
  id: string;
  kind: 'domain' | 'node';
  accepted: boolean;
  reason?: string;
  detail?: string;
  score?: number;
}

/** One step of a delegation chain. */
export interface ChainStep {
  type: 'WorkloadDelegated' | 'DelegationRejected' | 'AllocationPlaced' | 'WorkloadUnschedulable';
  revision: number;
  recordedAt: string;
  data: {
    hop?: number;
    fromScope?: string | null;
    to?: string;
    toKind?: string;
    scope?: string;
    reason?: string;
    detail?: string;
    nodeId?: string;
    domainId?: string;
    policy?: unknown;
    candidates?: Candidate[];
    /** Compact records: members of the scope, candidates judged, counts per rejection reason, top kept. */
    members?: number;
    judged?: number;
    rejectedCounts?: Record<string, number>;
    topK?: number;
    reasons?: Record<string, number>;
  };
}

/** One allocation of a workload, with what it used as its node measured it. */
export interface Allocation {
  allocationId: string;
  nodeId: string;
  status?: string;
  exitCode?: number | null;
  reason?: string;
  ports?: Array<{ containerPort: number; hostPort: number; protocol: string }>;
  usage?: { cpuSeconds: number; memoryBytes: number; memoryPeakBytes: number };
}

/** One workload (GET /v1/workloads/:id). */
export interface WorkloadDetail {
  workloadId: string;
  name: string;
  namespace: string;
  status: string;
  submittedAt: string;
  submittedBy?: { kind: string; id: string };
  instances: Instance[];
  allocations: Allocation[];
  delegations: Array<{ instance: number; attempt: number; steps: ChainStep[] }>;
}

/** Log lines of a workload's allocations. */
export interface Logs {
  allocations: Array<{ allocationId: string; lines: Array<{ stream: string; line: string }> }>;
}

/** A namespace's quota (GET /v1/quotas). */
export interface Quota {
  namespace: string;
  limits: Partial<Record<QuotaKey, number>>;
  used: Record<QuotaKey, number>;
}

/** The resources a quota limits. */
export type QuotaKey = 'cpuMillis' | 'memoryBytes' | 'accelerators' | 'workloads';

/** A task queue in the list (GET /v1/taskqueues). */
export interface TaskQueueItem {
  queueId: string;
  name: string;
  namespace: string;
  /** idle, running, paused or deleted. */
  status: string;
  currentTask: { taskId: string; name: string } | null;
  /** Tasks per status. */
  tasks: Record<string, number>;
  createdAt: string;
  updatedAt: string;
}

/** A running task's progress as the hub last sampled its Redis queues. */
export interface TaskProgress {
  inputLeft: number;
  outputDone: number;
  ratePerSecond: number;
  etaSeconds: number | null;
  fractionDone: number | null;
  sampledAt: string;
}

/** Why a task that names Redis queues shows no progress. */
export interface TaskProgressUnavailable {
  unavailable: string;
  sampledAt: string | null;
}

/** A task of a queue (GET /v1/taskqueues/:id). */
export interface TaskItem {
  taskId: string;
  name: string;
  /** pending, running, completed, failed or cancelled. */
  status: string;
  round: number;
  startedAt: string | null;
  endedAt: string | null;
  reason: string | null;
  nodes: number;
  spec: {
    inputQueue?: string;
    outputQueue?: string;
    autoAdvance?: boolean;
    image?: string;
    command?: string;
  };
  /** The running task's instances by status. */
  instances?: Record<string, number>;
  progress: TaskProgress | TaskProgressUnavailable | null;
}

/** One task queue with its tasks in order (GET /v1/taskqueues/:id). */
export interface TaskQueueDetail {
  queueId: string;
  name: string;
  namespace: string;
  description: string;
  status: string;
  currentTask: string | null;
  tasks: TaskItem[];
  /** The hub's last trouble carrying out the queue (launching, stopping), if any. */
  problem: { at: string; message: string } | null;
  createdAt: string;
  updatedAt: string;
}

/** What a task queue command answers. */
export interface TaskQueueCommandResult {
  queueId: string;
  status: string;
  current: string | null;
  revision: number;
  events: string[];
}
