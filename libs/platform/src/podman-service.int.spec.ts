import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeWithContainers } from '@hcn/testing';
import { pingEngine, startEngineIfMissing } from './podman-service';

describeWithContainers('the container engine an agent starts when none is configured (real podman)', () => {
  it('starts nothing when a socket is configured', async () => {
    const lines: string[] = [];
    const dir = mkdtempSync(join(tmpdir(), 'hcn-engine-'));
    expect(await startEngineIfMissing('/run/some/engine.sock', dir, (l) => lines.push(l))).toBeUndefined();
    expect(lines).toEqual([]);
  });

  it("starts podman's Docker API service on a socket in the given directory, says so, and stops it", async () => {
    const lines: string[] = [];
    const dir = mkdtempSync(join(tmpdir(), 'hcn-engine-'));
    const engine = await startEngineIfMissing(undefined, dir, (l) => lines.push(l));
    try {
      expect(engine?.socketPath).toBe(join(dir, 'podman.sock'));
      expect(await pingEngine(join(dir, 'podman.sock'))).toBe(true);
      expect(lines).toEqual([`container engine: podman system service on ${join(dir, 'podman.sock')}`]);
    } finally {
      await engine?.stop();
    }
    expect(await pingEngine(join(dir, 'podman.sock'))).toBe(false);
  });
});
