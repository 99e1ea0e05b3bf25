import type { Position } from '@hcn/contracts';
import { loadCheckpoint, saveCheckpoint } from '@hcn/read-models';
import type { DataSource } from 'typeorm';

/** A second between saves: a crash repeats at most that much of a relay's work (its receivers drop repeats). */
const SAVE_EVERY_MS = 1000;

/**
 * The checkpoint of one of the hub's log followers that act outside the store (relays to Kafka or other sites):
 * where it starts again after a restart, saved in its read-model row at most every `everyMs` as it moves on, and
 * at once on `save` (stop).
 */
export class ThrottledCheckpoint {
  private position: Position | undefined;
  private savedAt = 0;

  constructor(
    private readonly readModels: DataSource,
    /** The checkpoint's row name. */
    readonly name: string,
    private readonly everyMs = SAVE_EVERY_MS,
  ) {}

  /** The position saved last (undefined: start from the beginning of the log). */
  load(): Promise<Position | undefined> {
    return loadCheckpoint(this.readModels.manager, this.name);
  }

  /** Everything up to `position` is done: saved unless the last save is more recent than `everyMs` (or `now`). */
  async reached(position: Position, now = false): Promise<void> {
    this.position = position;
    if (now || Date.now() - this.savedAt >= this.everyMs) await this.save();
  }

  /** Saves the position reached last, if any. */
  async save(): Promise<void> {
    const position = this.position;
    if (!position) return;
    this.savedAt = Date.now();
    await this.readModels.transaction((tx) => saveCheckpoint(tx, this.name, position, 0, new Date()));
  }
}
