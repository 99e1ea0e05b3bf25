import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { Socket, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, waitUntil } from './ports';

/** A Redis server the tests can use (no password, no persistence). */
export interface RunningRedis {
  /** `redis://127.0.0.1:<port>`. */
  readonly url: string;
  readonly port: number;
  /** Stops the server and removes its directory. */
  stop(): Promise<void>;
}

function run(log: (line: string) => void, command: string, args: string[]): void {
  log(`$ ${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  if (result.error) throw new Error(`${command} could not run: ${result.error.message}`);
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${result.status}`);
}

function redisServerInstalled(): boolean {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

/** Installs Debian's redis-server with apt-get when it is missing (needs root). */
function ensureRedisServer(log: (line: string) => void): void {
  if (redisServerInstalled()) return;
  if (process.getuid?.() !== 0)
    throw new Error('redis-server missing and not root, so apt-get cannot install it');
  log('installing Debian redis-server with apt-get (once) ...');
  run(log, 'apt-get', ['update', '-q']);
  run(log, 'apt-get', ['install', '-y', '-q', '--no-install-recommends', 'redis-server']);
  if (!redisServerInstalled()) throw new Error('redis-server still missing after apt-get install');
}

/** Resolves true when a Redis on `port` answers PING with PONG. */
function pong(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket: Socket = connect({ host: '127.0.0.1', port });
    let reply = '';
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (d) => {
      reply += d.toString();
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
  });
}

/**
 * Debian's redis-server (installed when missing) on a free loopback port with a directory of its own, no RDB
 * snapshots and no append-only file; stop() ends it and removes the directory.
 */
export async function startRedisForTests(log: (line: string) => void): Promise<RunningRedis> {
  const started = Date.now();
  ensureRedisServer(log);
  const dir = await mkdtemp(join(tmpdir(), 'hcn-redis-'));
  const port = await freePort();
  const child: ChildProcess = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--save',
      '',
      '--appendonly',
      'no',
      '--daemonize',
      'no',
      '--logfile',
      '',
    ],
    { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const keep = (d: Buffer): void => void (output = (output + d.toString()).slice(-2000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const timer = new Promise((r) => setTimeout(r, 5000));
    await Promise.race([exited, timer]);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await waitUntil(
      `redis-server on 127.0.0.1:${port}`,
      async () => {
        if (child.exitCode !== null) throw new Error(`redis-server exited: ${output.trim() || 'no output'}`);
        return pong(port);
      },
      15000,
    );
  } catch (error) {
    await stop();
    throw error;
  }
  log(`Redis: redis-server on 127.0.0.1:${port} ready in ${Date.now() - started} ms`);
  return { url: `redis://127.0.0.1:${port}`, port, stop };
}
