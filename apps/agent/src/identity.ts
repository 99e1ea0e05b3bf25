import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The node id this agent registered with, kept on disk so a restart keeps its identity. */
export class NodeIdentity {
  private readonly path: string;

  constructor(dataDir: string) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    this.path = join(dataDir, 'node-id');
  }

  /** The stored node id, if any. */
  read(): string | undefined {
    return existsSync(this.path) ? readFileSync(this.path, 'utf8').trim() || undefined : undefined;
  }

  /** Stores the node id the hub confirmed. */
  write(nodeId: string): void {
    writeFileSync(this.path, `${nodeId}\n`, { mode: 0o600 });
  }
}
