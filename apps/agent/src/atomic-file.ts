import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs';

/**
 * Replaces a file's content all at once (a temporary file beside it, flushed, then renamed over it), so an agent
 * killed mid-write leaves the old content or the new one, never a torn file. The file is the agent's alone (0600).
 */
export function writeFileAtomically(path: string, content: string): void {
  const temporary = `${path}.tmp`;
  const fd = openSync(temporary, 'w', 0o600);
  try {
    writeFileSync(fd, content);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(temporary, { force: true });
    throw err;
  }
  closeSync(fd);
  renameSync(temporary, path);
}
