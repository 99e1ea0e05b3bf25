import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * JSON with object keys sorted at every level (the bytes a MAC is computed over): members whose value is
 * `undefined` left out, an array element JSON has no text for (`undefined`, a function) written as nothing. Built
 * in one pass of string concatenation (a run command and a started report are signed or checked per placement).
 */
function canonical(value: unknown): string {
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i > 0 ? ',' : '') + (canonical(value[i]) ?? '');
    return out + ']';
  }
  if (value && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record);
    if (keys.length > 1) keys.sort();
    let out = '{';
    let separator = '';
    for (const key of keys) {
      const member = record[key];
      if (member === undefined) continue;
      out += `${separator}${JSON.stringify(key)}:${canonical(member)}`;
      separator = ',';
    }
    return out + '}';
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
