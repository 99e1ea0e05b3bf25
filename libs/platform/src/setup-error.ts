/** A problem of the host the operator must fix (printed as its message alone, exit 2), not a bug. */
export class SetupError extends Error {}
