/** Base of every error HCN raises on purpose: a stable dotted code (`NODE.NOT_FOUND`) and structured details. */
export class HcnError extends Error {
  constructor(
    /** Stable dotted code, mapped to HTTP status in one place at the edge. */
    readonly code: string,
    message: string,
    /** Machine-readable details (field errors, expected/actual revisions, ...). */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** One problem in a validated value: where it is and what is wrong, with a dotted code. */
export interface FieldIssue {
  path: string;
  code: string;
  message: string;
}

/** A value failed its schema; `issues` lists each field with its own code. */
export class ValidationError extends HcnError {
  constructor(
    code: string,
    message: string,
    readonly issues: FieldIssue[],
  ) {
    super(code, message, { issues });
  }
}
