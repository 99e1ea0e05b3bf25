import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const KEEP = 1000;

/** Command ids this agent already applied (on disk), so each command is applied at most once. */
export class AppliedCommands {
  private readonly path: string;
  private readonly ids: string[];

  constructor(dataDir: string) {
    this.path = join(dataDir, 'applied-commands.json');
    this.ids = existsSync(this.path) ? (JSON.parse(readFileSync(this.path, 'utf8')) as string[]) : [];
  }

  /** True the first time an id is seen (and records it); false for a repeat. */
  firstTime(commandId: string): boolean {
    if (this.ids.includes(commandId)) return false;
    this.ids.push(commandId);
    if (this.ids.length > KEEP) this.ids.splice(0, this.ids.length - KEEP);
    writeFileSync(this.path, JSON.stringify(this.ids), { mode: 0o600 });
    return true;
  }
}
