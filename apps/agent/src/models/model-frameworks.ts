import type { Runtime, ServedFramework } from '@hcn/contracts';
import { SKLEARN_PREDICTOR, sklearnRuntimeDir } from '@hcn/platform';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkloadUser } from '../isolation/workload-user';
import { servingConfigSchema, type ModelDownloadLimits, type ServingConfig } from './model-config';
import type { ModelLauncherOptions } from './model-launcher';

/** The framework name of the built-in server (scikit-learn models saved with joblib). */
export const BUILTIN_FRAMEWORK = 'sklearn';

/** How one framework is served here: its configuration and the runtime it serves with. */
export interface ServingEntry extends ServingConfig {
  readonly runtime: Runtime;
}

/** The built-in sklearn server's entry: `python sklearn_predictor.py --model {model} --port {port}` on all interfaces. */
export function builtinSklearnEntry(python: string): ServingConfig {
  return servingConfigSchema.parse({
    command: python,
    args: [SKLEARN_PREDICTOR, '--model', '{model}', '--port', '{port}', '--host', '0.0.0.0'],
    healthPath: '/healthz',
  });
}

/** The runtime an entry serves with: an image makes it a container server, a command alone a process one. */
export function runtimeOfEntry(entry: ServingConfig): Runtime {
  return entry.image !== undefined ? 'container' : 'process';
}

/**
 * Runs `python` as the workload user (or the agent's own) to see that it finds scikit-learn and joblib (located, not
 * imported: tens of milliseconds) and reads the built-in server; undefined when it does, else why not (one line).
 */
export function checkSklearnPython(
  python: string,
  user: WorkloadUser | undefined,
): Promise<string | undefined> {
  const probe = [
    'import importlib.util as u, sys',
    `open(${JSON.stringify(SKLEARN_PREDICTOR)}).close()`,
    "missing = [m for m in ('sklearn', 'joblib') if u.find_spec(m) is None]",
    "sys.exit('no module named ' + ', '.join(missing) if missing else 0)",
  ].join('\n');
  const who = user ? ` as ${user.name}` : '';
  return new Promise((resolve) => {
    const child = spawn(python, ['-c', probe], {
      cwd: '/',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8' },
      stdio: ['ignore', 'ignore', 'pipe'],
      ...(user ? { uid: user.uid, gid: user.gid } : {}),
    });
    // spawn's own `timeout` keeps its timer when the program cannot start: one of ours, cleared either way
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-500)));
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve(`${python} cannot run${who}: ${error.message}`);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) return resolve(undefined);
      const last = stderr.trim().split('\n').pop() ?? `exit code ${code}`;
      resolve(`${python} cannot load scikit-learn${who}: ${last}`);
    });
  });
}

/**
 * The model frameworks this agent serves: the operator's `models` entries, plus the built-in `sklearn` server when
 * its Python is usable by the workload user (HCN_SKLEARN_PYTHON, else the runtime `npm test` and `npm start`
 * install under the cache directory); an operator's own `sklearn` entry wins over the built-in one.
 */
export class ModelFrameworks {
  private builtin: ServingConfig | undefined;

  constructor(
    private readonly configured: Readonly<Record<string, ServingConfig>>,
    private readonly user: WorkloadUser | undefined,
    private readonly log: (line: string) => void,
  ) {}

  /** How `framework` is served with `runtime` here, if it is. */
  entry(framework: string, runtime: Runtime): ServingEntry | undefined {
    const config = this.configured[framework] ?? (framework === BUILTIN_FRAMEWORK ? this.builtin : undefined);
    if (!config || runtimeOfEntry(config) !== runtime) return undefined;
    return { ...config, runtime };
  }

  /** What a registration says: each framework served with a runtime the node offers now, by name. */
  served(runtimes: readonly Runtime[]): ServedFramework[] {
    const all = { ...(this.builtin ? { [BUILTIN_FRAMEWORK]: this.builtin } : {}), ...this.configured };
    return Object.entries(all)
      .map(([framework, config]) => ({ framework, runtimes: [runtimeOfEntry(config)] }))
      .filter((f) => f.runtimes.every((r) => runtimes.includes(r)))
      .sort((a, b) => (a.framework < b.framework ? -1 : a.framework > b.framework ? 1 : 0));
  }

  /** What the workload runner's model launcher needs from the agent's configuration and this lookup. */
  launcherOptions(
    config: { modelDownload: ModelDownloadLimits; containers: { allowedHostPaths: readonly string[] } },
    user: WorkloadUser | undefined,
  ): Omit<ModelLauncherOptions, 'baseDir' | 'reservePorts'> {
    return {
      entry: (framework, runtime) => this.entry(framework, runtime),
      download: config.modelDownload,
      allowedHostPaths: config.containers.allowedHostPaths,
      ...(user ? { user } : {}),
    };
  }

  /** True when the built-in sklearn server is offered. */
  get builtinServed(): boolean {
    return this.builtin !== undefined;
  }

  /**
   * Offers the built-in sklearn server with `python` once it checks out as the workload user; false (and one log
   * line saying why) when it does not. Nothing to do when the operator configured `sklearn` itself.
   */
  async offerSklearn(python: string): Promise<boolean> {
    if (this.configured[BUILTIN_FRAMEWORK]) return false;
    const problem = await checkSklearnPython(python, this.user);
    if (problem) {
      this.log(
        `models: the built-in sklearn server is not offered: ${problem} (set HCN_SKLEARN_PYTHON or HCN_CACHE_DIR to a runtime the workload user can read, HCN_PROCESS_USER=none, or configure models.sklearn)`,
      );
      return false;
    }
    this.builtin = builtinSklearnEntry(python);
    this.log(`models: serving sklearn with the built-in server (${python})`);
    return true;
  }

  /**
   * Looks for the built-in server's Python at start: the configured one, else the installed runtime's (if its file
   * exists); offers it when it checks out. Returns whether the built-in server is offered.
   */
  async discover(configuredPython: string | undefined): Promise<boolean> {
    const installed = join(sklearnRuntimeDir(), 'bin', 'python');
    const python = configuredPython ?? (existsSync(installed) ? installed : undefined);
    if (python) return this.offerSklearn(python);
    return false;
  }
}
