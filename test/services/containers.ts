import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, copyFileSync, symlinkSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PODMAN_FLAGS, RunningEngine, podmanInstalled, startPodmanService } from '@hcn/platform';

/** The local image the container specs run (busybox, imported from Debian's busybox-static; nothing is pulled). */
export const TEST_IMAGE = 'localhost/hcn-busybox:latest';

function run(log: (line: string) => void, command: string, args: string[]): void {
  log(`$ ${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  if (result.error) throw new Error(`${command} could not run: ${result.error.message}`);
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${result.status}`);
}

/** Installs podman, runc and busybox-static with apt-get when podman or busybox is missing (needs root). */
function ensurePackages(log: (line: string) => void): void {
  const busybox = spawnSync('busybox', ['true'], { stdio: 'ignore' }).status === 0;
  if (podmanInstalled() && busybox) return;
  if (process.getuid?.() !== 0)
    throw new Error('podman or busybox missing and not root, so apt-get cannot install them');
  log('installing Debian podman, runc and busybox-static with apt-get (once, about a minute) ...');
  run(log, 'apt-get', ['update', '-q']);
  run(log, 'apt-get', ['install', '-y', '-q', '--no-install-recommends', 'podman', 'runc', 'busybox-static']);
}

/** Imports a busybox root filesystem as TEST_IMAGE (every applet linked, a passwd with nobody). */
function importImage(log: (line: string) => void): void {
  const root = mkdtempSync(join(tmpdir(), 'hcn-busybox-'));
  try {
    for (const dir of ['bin', 'tmp', 'etc', 'data']) mkdirSync(join(root, dir));
    const busybox = spawnSync('sh', ['-c', 'command -v busybox'], { encoding: 'utf8' }).stdout.trim();
    copyFileSync(busybox, join(root, 'bin', 'busybox'));
    const applets = spawnSync(busybox, ['--list'], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean);
    for (const applet of applets) if (applet !== 'busybox') symlinkSync('busybox', join(root, 'bin', applet));
    writeFileSync(
      join(root, 'etc', 'passwd'),
      'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/sh\n',
    );
    writeFileSync(join(root, 'etc', 'group'), 'root:x:0:\nnogroup:x:65534:\n');
    const tar = join(root, '..', `${root.split('/').pop()}.tar`);
    run(log, 'tar', ['-C', root, '-cf', tar, '.']);
    run(log, 'podman', [
      ...PODMAN_FLAGS,
      'import',
      '--change',
      'CMD ["/bin/sh"]',
      '--change',
      'ENV PATH=/bin',
      tar,
      TEST_IMAGE,
    ]);
    rmSync(tar, { force: true });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * The container engine the specs use: podman (installed when missing), the local busybox image (imported when
 * missing), and `podman system service` on a socket of its own.
 */
export async function startContainerEngineForTests(log: (line: string) => void): Promise<RunningEngine> {
  const started = Date.now();
  ensurePackages(log);
  const exists = spawnSync('podman', [...PODMAN_FLAGS, 'image', 'exists', TEST_IMAGE]).status === 0;
  if (!exists) importImage(log);
  const engine = await startPodmanService(mkdtempSync(join(tmpdir(), 'hcn-podman-')));
  log(
    `container engine: podman service on ${engine.socketPath} (${TEST_IMAGE}) in ${Date.now() - started} ms`,
  );
  return engine;
}
