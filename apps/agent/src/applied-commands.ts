import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomically } from './atomic-file';

const KEEP = 1000;

interface Stored {
  /** Applied commands, oldest first: [command id, signing time or '']. */
  readonly applied: Array<[string, string]>;
  /** The newest signing time among the commands forgotten: one signed at or before it may have been applied. */
  horizon?: string;
}

/** Commands this agent already applied (on disk), so each is applied at most once, and replays are recognised. */
export class AppliedCommands {
  private readonly path: string;
  private readonly stored: Stored;

  constructor(dataDir: string) {
    this.path = join(dataDir, 'applied-commands.json');
    const raw: unknown = existsSync(this.path)
      ? JSON.parse(readFileSync(this.path, 'utf8'))
      : { applied: [] };
    // files written before signed commands hold the bare id list
    this.stored = Array.isArray(raw)
      ? { applied: (raw as string[]).map((id): [string, string] => [id, '']) }
      : (raw as Stored);
  }

  /** True when a command signed at `issuedAt` may have been applied and forgotten since (treated as a replay). */
  beforeHorizon(issuedAt: string): boolean {
    return this.stored.horizon !== undefined && issuedAt <= this.stored.horizon;
  }

  /** True the first time an id is seen (and records it); false for a repeat. */
  firstTime(commandId: string, issuedAt = ''): boolean {
    if (this.stored.applied.some(([id]) => id === commandId)) return false;
    this.stored.applied.push([commandId, issuedAt]);
    const forgotten = this.stored.applied.splice(0, Math.max(0, this.stored.applied.length - KEEP));
    for (const [, at] of forgotten)
      if (at && (!this.stored.horizon || at > this.stored.horizon)) this.stored.horizon = at;
    writeFileAtomically(this.path, JSON.stringify(this.stored));
    return true;
  }
}
