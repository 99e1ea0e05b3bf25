const MAX_URL_LENGTH = 2048;
const HOST_NAME = /^[A-Za-z0-9]([A-Za-z0-9_-]{0,62})(\.[A-Za-z0-9_-]{1,63})*\.?$/;
const IPV6 = /^\[[0-9A-Fa-f:.]+\]$/;

/**
 * What is wrong with a Redis URL a task queue names, or undefined when it is usable:
 * `redis://` or `rediss://` (TLS), an optional `[user]:password@` (percent-encoded), a host (name, IPv4 or
 * bracketed IPv6), an optional port (1-65535) and an optional database index (`/0`); nothing else. The
 * answer never repeats the password.
 */
export function redisUrlProblem(url: string): string | undefined {
  if (typeof url !== 'string' || url.length === 0) return 'must be a non-empty string';
  if (url.length > MAX_URL_LENGTH) return `must be at most ${MAX_URL_LENGTH} characters`;
  if ([...url].some((c) => c.trim() === '' || c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f))
    return 'must not contain spaces or control characters';
  if (!/^rediss?:\/\//i.test(url)) return 'must start with redis:// or rediss://';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'is not a valid URL (host, port or password malformed)';
  }
  if (!parsed.hostname) return 'must name a host';
  if (!HOST_NAME.test(parsed.hostname) && !IPV6.test(parsed.hostname))
    return 'host must be a host name, an IPv4 address or a bracketed IPv6 address';
  if (parsed.port !== '' && (Number(parsed.port) < 1 || Number(parsed.port) > 65535))
    return 'port must be 1-65535';
  try {
    decodeURIComponent(parsed.password);
    decodeURIComponent(parsed.username);
  } catch {
    return 'user and password must be validly percent-encoded';
  }
  if (parsed.pathname !== '' && parsed.pathname !== '/' && !/^\/\d{1,5}$/.test(parsed.pathname))
    return 'path may only be a database index such as /0';
  if (parsed.search !== '' || url.includes('?')) return 'must not have a query string';
  if (parsed.hash !== '' || url.includes('#')) return 'must not have a fragment';
  return undefined;
}

/** The URL with its password (if any) replaced by `***`, for logs, events and error messages. */
export function redactRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (!parsed.password) return url;
    parsed.password = '***';
    return parsed.toString();
  } catch {
    return url.replace(/\/\/[^@/]*@/, '//***@');
  }
}
