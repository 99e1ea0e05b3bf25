import type { Probe } from '@hcn/contracts';
import { request } from 'node:http';
import { connect } from 'node:net';

/** What one check of a probe found. */
export interface CheckOutcome {
  readonly ok: boolean;
  /** What was seen (`HTTP 503`, `connection refused`, `exit 1`, `timed out after 1 s`). */
  readonly detail: string;
}

/** Runs a command inside an allocation (its user, directory and environment); exit code null: it did not end. */
export type ExecInAllocation = (command: readonly string[], timeoutMs: number) => Promise<number | null>;

/** Where a check connects: the host port on the node's loopback (undefined: the port is not published). */
export interface CheckTarget {
  readonly hostPort?: number;
  readonly exec: ExecInAllocation;
}

/** Loopback: probes check what runs on this node, through the host ports it published. */
const LOOPBACK = '127.0.0.1';

/** Runs one check of a probe against its target, within the probe's timeout; never throws. */
export async function checkOnce(probe: Probe, target: CheckTarget): Promise<CheckOutcome> {
  const timeoutMs = Math.round(probe.timeoutSeconds * 1000);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<CheckOutcome>((resolve) => {
    timer = setTimeout(
      () => resolve({ ok: false, detail: `timed out after ${probe.timeoutSeconds} s` }),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([late, attempt(probe, target, timeoutMs)]);
  } catch (error) {
    return { ok: false, detail: (error as Error).message };
  } finally {
    clearTimeout(timer);
  }
}

function attempt(probe: Probe, target: CheckTarget, timeoutMs: number): Promise<CheckOutcome> {
  if (probe.exec) return execCheck(probe.exec.command, target.exec, timeoutMs);
  if (target.hostPort === undefined)
    return Promise.resolve({ ok: false, detail: 'the port is not published' });
  if (probe.http) return httpCheck(target.hostPort, probe.http.path, timeoutMs);
  return tcpCheck(target.hostPort, timeoutMs);
}

/** An HTTP GET: a status from 200 to 399 passes (the body is read and dropped). */
function httpCheck(port: number, path: string, timeoutMs: number): Promise<CheckOutcome> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: LOOPBACK,
        port,
        path,
        method: 'GET',
        agent: false,
        timeout: timeoutMs,
        headers: { 'user-agent': 'hcn-probe/1' },
      },
      (res) => {
        const status = res.statusCode ?? 0;
        res.resume();
        resolve({ ok: status >= 200 && status < 400, detail: `HTTP ${status}` });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer in ${timeoutMs} ms`)));
    req.on('error', (error) => resolve({ ok: false, detail: describe(error) }));
    req.end();
  });
}

/** A TCP connect: passes when the connection opens (it is closed at once). */
function tcpCheck(port: number, timeoutMs: number): Promise<CheckOutcome> {
  return new Promise((resolve) => {
    const socket = connect({ host: LOOPBACK, port });
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`no connection in ${timeoutMs} ms`)));
    socket.on('connect', () => {
      socket.destroy();
      resolve({ ok: true, detail: 'connected' });
    });
    socket.on('error', (error) => resolve({ ok: false, detail: describe(error) }));
  });
}

/** A command in the allocation: exit 0 passes. */
async function execCheck(
  command: readonly string[],
  exec: ExecInAllocation,
  timeoutMs: number,
): Promise<CheckOutcome> {
  const code = await exec(command, timeoutMs);
  if (code === null) return { ok: false, detail: `${command[0]} did not end in ${timeoutMs} ms` };
  return { ok: code === 0, detail: `exit ${code}` };
}

function describe(error: NodeJS.ErrnoException): string {
  if (error.code === 'ECONNREFUSED') return 'connection refused';
  if (error.code === 'ECONNRESET') return 'connection reset';
  return error.message;
}
