/** A snapshot or call the scheduling core refuses, with a stable dotted code (`SNAPSHOT.UNKNOWN_PARENT`). */
export class SchedulingError extends Error {
  constructor(
    /** Stable dotted code. */
    readonly code: string,
    message: string,
    /** Machine-readable details. */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}
