import { createHmac, timingSafeEqual } from 'node:crypto';

/** JSON with object keys sorted at every level (the bytes a MAC is computed over). */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The MAC of a command or report (every field but `mac`) with its node's key: HMAC-SHA256, base64url. */
export function commandMac(key: string, command: object): string {
  const { mac: _mac, ...signed } = command as { mac?: unknown };
  void _mac;
  return createHmac('sha256', key).update(canonical(signed)).digest('base64url');
}

/** True when `command.mac` is the MAC of the command with `key` (constant-time). */
export function commandMacMatches(key: string, command: { mac?: string }): boolean {
  return command.mac !== undefined && sameSecret(command.mac, commandMac(key, command));
}

/** Compares a presented secret (a MAC, a token) with the expected one in constant time. */
export function sameSecret(presented: string, expected: string): boolean {
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A report (or command) with its MAC added: the node's key over every other field. */
export function withMac<T extends object>(key: string, message: T): T & { mac: string } {
  return { ...message, mac: commandMac(key, message) };
}
