/** Exit statuses of `hcn` (README, "The hcn CLI"). */
export const EXIT = {
  /** Done. */
  OK: 0,
  /** The hub (or the log) answered with an error, or `audit verify` found a broken chain. */
  ERROR: 1,
  /** The command line was wrong: unknown command or option, missing or bad argument, unreadable file. */
  USAGE: 2,
  /** The hub or the event log could not be reached (or answered 502/503/504); `audit verify` could not check. */
  UNREACHABLE: 3,
  /** `audit explain`: the replayed decision differs from the recorded one. */
  MISMATCH: 4,
} as const;

/** An error the CLI reports itself: a dotted code, a one-line message and the exit status it ends with. */
export class CliError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly exitStatus: number = EXIT.ERROR,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** A command-line mistake found after parsing (a bad value, an unreadable spec file): exit 2. */
export function usageError(message: string): CliError {
  return new CliError('CLI.USAGE', message, EXIT.USAGE);
}

/** An error carrying a dotted code (`NODE.NOT_FOUND`), as HcnError and the hub's answers do. */
function dottedCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[A-Z][A-Z0-9_]*(\.[A-Z0-9_]+)+$/.test(code) ? code : undefined;
}

/** Socket-level failures: the peer is not there, refuses, or cannot be resolved. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EPIPE',
  'ECONNABORTED',
]);

/** True when the error (or its cause) is a failure to reach a server at all. */
export function isNetworkError(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/** The one line printed for an error and the exit status it ends with. */
export function describeFailure(error: unknown): { line: string; status: number } {
  if (error instanceof CliError) {
    const line = error.code === 'CLI.USAGE' ? error.message : `${error.code}: ${error.message}`;
    return { line, status: error.exitStatus };
  }
  const message = error instanceof Error ? error.message : String(error);
  const code = dottedCode(error);
  if (code) return { line: `${code}: ${message}`, status: EXIT.ERROR };
  if (isNetworkError(error)) return { line: `cannot reach the server: ${message}`, status: EXIT.UNREACHABLE };
  return { line: message, status: EXIT.ERROR };
}
