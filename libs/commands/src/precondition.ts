import { HcnError } from '@hcn/contracts';

/** A precondition on the stream a command appends to (HTTP `If-Match`). */
export interface HandleOptions {
  /**
   * The revisions the stream may be at: the command is decided on the stream as read only when it is at one of
   * them, and appended expecting exactly that revision; else REQUEST.PRECONDITION_FAILED and nothing written.
   */
  readonly ifRevision?: readonly number[];
}

/** REQUEST.PRECONDITION_FAILED: the stream is not at a revision the caller's precondition (`If-Match`) accepts. */
export class PreconditionFailedError extends HcnError {
  constructor(expected: readonly number[], actual: number | undefined) {
    super(
      'REQUEST.PRECONDITION_FAILED',
      actual === undefined
        ? 'The resource changed while this request was written; read it again'
        : `The resource is at revision ${actual}, not ${expected.join(' or ') || 'one If-Match names'}; read it again`,
      { ifMatch: [...expected], ...(actual === undefined ? {} : { revision: actual }) },
    );
  }
}
