import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';

/**
 * The node id this agent registered with and its credential, kept on disk (0600 in the agent's 0700 directory) so a
 * restart keeps its identity and may register the node again.
 */
export class NodeIdentity {
  private readonly path: string;
  private readonly credentialPath: string;
  private readonly commandKeyPath: string;

  constructor(dataDir: string) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    this.path = join(dataDir, 'node-id');
    this.credentialPath = join(dataDir, 'credential');
    this.commandKeyPath = join(dataDir, 'command-key');
  }

  /** The stored node id, if any. */
  read(): string | undefined {
    return existsSync(this.path) ? readFileSync(this.path, 'utf8').trim() || undefined : undefined;
  }

  /**
   * The node id, chosen here (a random UUID, stored) when there is none yet: the agent knows its id, and so its
   * command subscription, before it registers.
   */
  ensureNodeId(): string {
    const known = this.read();
    if (known) return known;
    const chosen = randomUUID();
    writeFileSync(this.path, `${chosen}\n`, { mode: 0o600 });
    return chosen;
  }

  /** The stored credential, if any. */
  credential(): string | undefined {
    return existsSync(this.credentialPath)
      ? readFileSync(this.credentialPath, 'utf8').trim() || undefined
      : undefined;
  }

  /** The key the hub signs this node's commands with, if stored. */
  commandKey(): string | undefined {
    return existsSync(this.commandKeyPath)
      ? readFileSync(this.commandKeyPath, 'utf8').trim() || undefined
      : undefined;
  }

  /** Stores the node id the hub confirmed, the credential it issued and its command key. */
  write(nodeId: string, credential: string, commandKey: string): void {
    writeFileSync(this.path, `${nodeId}\n`, { mode: 0o600 });
    writeFileSync(this.credentialPath, `${credential}\n`, { mode: 0o600 });
    writeFileSync(this.commandKeyPath, `${commandKey}\n`, { mode: 0o600 });
  }
}
