import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { report } from './support';

/**
 * The native VRAM guard's cost per hooked call: `make bench` in native/vram-guard measures each call with the guard
 * preloaded against the same call without it, in the same run, over the fake driver (no GPU here).
 */
export async function run(): Promise<void> {
  const dir = join(__dirname, '..', 'native', 'vram-guard');
  console.log(
    '[bench] make -C native/vram-guard bench (builds the guard, the fake driver and the bench program)',
  );
  const result = spawnSync('make', ['-s', '-C', dir, 'bench'], { stdio: 'inherit' });
  if (result.status !== 0) throw new Error('make bench failed (needs make and gcc)');
  report('vramguard', JSON.parse(readFileSync(join(dir, 'bench-result.json'), 'utf8')));
}
