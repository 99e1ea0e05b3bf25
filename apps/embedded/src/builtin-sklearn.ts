import { ensureSklearnRuntime, sklearnRuntimeDir } from '@hcn/platform';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** True when `python3` runs here with the venv module (what the scikit-learn runtime is made with). */
function hasPythonVenv(): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn('python3', ['-c', 'import venv, ensurepip'], { stdio: 'ignore' });
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.on('error', () => {
      clearTimeout(timer);
      resolve(false);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve(code === 0);
    });
  });
}

/**
 * Embedded mode's built-in `sklearn` model server: when neither HCN_SKLEARN_PYTHON nor an installed runtime gave the
 * local agent one, installs the scikit-learn runtime in the background (once, under the cache directory; one line)
 * and offers it to the agent, which registers again; without python3 (and venv) one line says how to get it. Never
 * delays or fails the start. `HCN_SKLEARN_AUTO_INSTALL=0` leaves it out.
 */
export async function offerBuiltinSklearn(
  agent: { offerSklearn(python: string): Promise<boolean> },
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
): Promise<void> {
  if (env.HCN_SKLEARN_PYTHON || existsSync(join(sklearnRuntimeDir(), 'bin', 'python'))) return; // the agent's
  if (env.HCN_SKLEARN_AUTO_INSTALL === '0') return;
  if (!(await hasPythonVenv())) {
    log(
      'models: framework sklearn is not served: install python3 with venv (apt-get install python3-venv) and restart, or set HCN_SKLEARN_PYTHON to a Python with scikit-learn',
    );
    return;
  }
  log(
    `models: installing scikit-learn into ${sklearnRuntimeDir()} in the background for the built-in sklearn server (once, about 30 s; HCN_SKLEARN_AUTO_INSTALL=0 skips it)`,
  );
  try {
    const python = await ensureSklearnRuntime(() => undefined);
    await agent.offerSklearn(python);
  } catch (error) {
    log(`models: framework sklearn is not served: ${(error as Error).message.split('\n')[0]}`);
  }
}
