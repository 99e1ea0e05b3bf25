import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/** The scikit-learn release the built-in model server runs (pinned: models are read by the version that wrote them). */
export const SKLEARN_VERSION = '1.9.1';

/** The built-in server of `framework: "sklearn"` models, shipped with the agent. */
export const SKLEARN_PREDICTOR = resolve(
  __dirname,
  '..',
  '..',
  '..',
  'apps',
  'agent',
  'serving',
  'sklearn_predictor.py',
);

/** Where the scikit-learn runtime lives: `<HCN_CACHE_DIR or ~/.cache/hcn>/sklearn-<version>`. */
export function sklearnRuntimeDir(
  cacheDir = process.env.HCN_CACHE_DIR ?? join(homedir(), '.cache', 'hcn'),
): string {
  return join(cacheDir, `sklearn-${SKLEARN_VERSION}`);
}

/** The runtime's Python when it is installed and imports scikit-learn, else undefined. */
export function installedSklearnPython(dir = sklearnRuntimeDir()): string | undefined {
  const python = join(dir, 'bin', 'python');
  if (!existsSync(python)) return undefined;
  const check = spawnSync(python, ['-c', 'import sklearn, joblib'], { stdio: 'ignore', timeout: 60_000 });
  return check.status === 0 ? python : undefined;
}

function run(command: string, args: string[], log: (line: string) => void): Promise<void> {
  log(`$ ${command} ${args.join(' ')}`);
  return new Promise((done, fail) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let tail = '';
    const keep = (chunk: Buffer) => (tail = (tail + chunk.toString()).slice(-2000));
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', (error) => fail(new Error(`${command} could not run: ${error.message}`)));
    child.on('close', (code) =>
      code === 0
        ? done()
        : fail(new Error(`${command} ${args.join(' ')} exited with ${code}: ${tail.trim()}`)),
    );
  });
}

/**
 * The Python of a virtual environment with scikit-learn SKLEARN_VERSION (and joblib) for the built-in model server:
 * made once with `python3 -m venv` and pip from PyPI (about 30 s and 300 MB), then reused. Rejects with the reason
 * when python3, venv or PyPI is missing.
 */
export async function ensureSklearnRuntime(
  log: (line: string) => void,
  dir = sklearnRuntimeDir(),
): Promise<string> {
  const ready = installedSklearnPython(dir);
  if (ready) return ready;
  log(`installing scikit-learn ${SKLEARN_VERSION} into ${dir} (once, about 30 s) ...`);
  // built beside it and renamed into place, so runs installing at once never see (or leave) half of one
  const building = `${dir}.building-${process.pid}`;
  mkdirSync(dirname(dir), { recursive: true });
  try {
    await run('python3', ['-m', 'venv', '--clear', building], log);
    const pip = ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check'];
    await run(join(building, 'bin', 'python'), [...pip, `scikit-learn==${SKLEARN_VERSION}`], log);
    if (!installedSklearnPython(dir)) {
      rmSync(dir, { recursive: true, force: true });
      renameSync(building, dir);
    }
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
  const python = installedSklearnPython(dir);
  if (!python) throw new Error(`scikit-learn was installed into ${dir} but does not import`);
  return python;
}
