import { readBootstrapToken } from '@hcn/contracts';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { writeFileAtomically } from './atomic-file';

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
   * The node id, chosen here when there is none yet (the one a per-node bootstrap token names, else a random
   * UUID) and stored: the agent knows its id, and so its command subscription, before it registers.
   */
  ensureNodeId(joinToken?: string): string {
    const known = this.read();
    if (known) return known;
    const chosen = (joinToken && readBootstrapToken(joinToken)?.claims.nodeId) || randomUUID();
    writeFileAtomically(this.path, `${chosen}\n`);
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
    // each replaced whole: a reader (or an agent killed mid-write) never sees a torn or empty file
    writeFileAtomically(this.credentialPath, `${credential}\n`);
    writeFileAtomically(this.commandKeyPath, `${commandKey}\n`);
    writeFileAtomically(this.path, `${nodeId}\n`);
  }
}
