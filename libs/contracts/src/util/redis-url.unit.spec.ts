import { redactRedisUrl, redisUrlProblem } from './redis-url';

describe('redisUrlProblem', () => {
  it.each([
    'redis://127.0.0.1:6379',
    'redis://localhost',
    'redis://redis.example.com:6380/0',
    'redis://:s3cret@host:6379',
    'redis://worker:s3cret@host:6379/15',
    'redis://:p%40ss%20word@host',
    'rediss://cache.example.com:6380/2',
    'redis://[::1]:6379',
    'redis://host.containers.internal:6379/',
    'REDIS://Host',
  ])('accepts %s', (url) => {
    expect(redisUrlProblem(url)).toBeUndefined();
  });

  it.each([
    ['', 'must be a non-empty string'],
    ['http://host:6379', 'must start with redis:// or rediss://'],
    ['redis:host', 'must start with redis:// or rediss://'],
    ['host:6379', 'must start with redis:// or rediss://'],
    ['redis://', 'must name a host'],
    ['redis://:6379', 'is not a valid URL (host, port or password malformed)'],
    ['redis://host:0', 'port must be 1-65535'],
    ['redis://host:65536', 'is not a valid URL (host, port or password malformed)'],
    ['redis://host:port', 'is not a valid URL (host, port or password malformed)'],
    ['redis://ho st', 'must not contain spaces or control characters'],
    ['redis://host\n', 'must not contain spaces or control characters'],
    ['redis://a$b', 'host must be a host name, an IPv4 address or a bracketed IPv6 address'],
    ['redis://host/queue', 'path may only be a database index such as /0'],
    ['redis://host/0/1', 'path may only be a database index such as /0'],
    ['redis://host?db=1', 'must not have a query string'],
    ['redis://host/0#x', 'must not have a fragment'],
    ['redis://:p%zz@host', 'user and password must be validly percent-encoded'],
    [`redis://${'a'.repeat(2050)}`, 'must be at most 2048 characters'],
  ])('rejects %j: %s', (url, problem) => {
    expect(redisUrlProblem(url)).toBe(problem);
  });

  it('never repeats the password', () => {
    for (const url of ['redis://:hunter2@a$b', 'redis://:hunter2@host/x', 'redis://u:hunter2@host?q'])
      expect(redisUrlProblem(url)).not.toContain('hunter2');
  });

  it('rejects what is not a string', () => {
    expect(redisUrlProblem(42 as unknown as string)).toBe('must be a non-empty string');
  });
});

describe('redactRedisUrl', () => {
  it.each([
    ['redis://:s3cret@host:6379/1', 'redis://:***@host:6379/1'],
    ['redis://user:s3cret@host', 'redis://user:***@host'],
    ['redis://host:6379', 'redis://host:6379'],
    ['redis://:s3cret@ho st', 'redis://***@ho st'],
  ])('%s -> %s', (url, redacted) => {
    expect(redactRedisUrl(url)).toBe(redacted);
  });
});
