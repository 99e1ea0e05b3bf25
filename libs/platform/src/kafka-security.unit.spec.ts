import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from './config';
import { describeKafkaSecurity, loadKafkaSecurity } from './kafka-security';

const CERT = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const KEY = '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n';

/** The problems a ConfigError lists, or a failure when loading succeeds. */
function problems(env: NodeJS.ProcessEnv): string[] {
  try {
    loadKafkaSecurity('agent', env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toMatch(/^Invalid agent configuration:/);
    return (error as ConfigError).details.problems as string[];
  }
  throw new Error(`expected ${JSON.stringify(env)} to be refused`);
}

describe('Kafka TLS/SASL settings from the environment', () => {
  let dir: string;
  const file = (name: string, text: string): string => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'hcn-kafka-security-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('is plaintext without SASL when nothing is set (blank values count as unset)', () => {
    expect(loadKafkaSecurity('hub', {})).toEqual({});
    expect(loadKafkaSecurity('hub', { KAFKA_SSL: '', KAFKA_SASL_MECHANISM: ' ' })).toEqual({});
    expect(loadKafkaSecurity('hub', { KAFKA_SSL: 'false' })).toEqual({});
    expect(describeKafkaSecurity({})).toBe('plaintext, client kafkajs');
  });

  it('maps KAFKA_SSL=true alone to TLS with the system CAs', () => {
    expect(loadKafkaSecurity('hub', { KAFKA_SSL: 'true' })).toEqual({ ssl: true });
    expect(loadKafkaSecurity('hub', { KAFKA_SSL: '1' })).toEqual({ ssl: true });
  });

  it('reads the CA, certificate and key files into PEM settings', () => {
    const security = loadKafkaSecurity('hub', {
      KAFKA_SSL: 'true',
      KAFKA_SSL_CA_FILE: file('ca.pem', CERT),
      KAFKA_SSL_CERT_FILE: file('client.pem', CERT),
      KAFKA_SSL_KEY_FILE: file('client.key', KEY),
    });
    expect(security).toEqual({ ssl: { ca: CERT, cert: CERT, key: KEY } });
  });

  it('maps SCRAM credentials, the mechanism case-insensitive, the password from a file without its newline', () => {
    expect(
      loadKafkaSecurity('agent', {
        KAFKA_SASL_MECHANISM: 'SCRAM-SHA-512',
        KAFKA_SASL_USERNAME: 'hcn-agent-7',
        KAFKA_SASL_PASSWORD: 's3cret',
      }),
    ).toEqual({ sasl: { mechanism: 'scram-sha-512', username: 'hcn-agent-7', password: 's3cret' } });
    const security = loadKafkaSecurity('agent', {
      KAFKA_SSL: 'true',
      KAFKA_SASL_MECHANISM: 'scram-sha-256',
      KAFKA_SASL_USERNAME: 'hcn-hub',
      KAFKA_SASL_PASSWORD_FILE: file('password', 'from file\n'),
    });
    expect(security).toEqual({
      ssl: true,
      sasl: { mechanism: 'scram-sha-256', username: 'hcn-hub', password: 'from file' },
    });
    expect(describeKafkaSecurity(security)).toBe('TLS, SASL scram-sha-256 as hcn-hub, client kafkajs');
  });

  it('refuses a mechanism without a username or a password, naming each variable', () => {
    const listed = problems({ KAFKA_SASL_MECHANISM: 'scram-sha-512' });
    expect(listed).toHaveLength(2);
    expect(listed[0]).toMatch(/^KAFKA_SASL_USERNAME: required when KAFKA_SASL_MECHANISM is set/);
    expect(listed[1]).toMatch(
      /^KAFKA_SASL_PASSWORD: KAFKA_SASL_PASSWORD or KAFKA_SASL_PASSWORD_FILE is required/,
    );
  });

  it('refuses credentials without a mechanism, an unknown mechanism, and two passwords', () => {
    expect(problems({ KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'p' })).toEqual([
      expect.stringMatching(/^KAFKA_SASL_MECHANISM: required when KAFKA_SASL_USERNAME/),
    ]);
    expect(
      problems({ KAFKA_SASL_MECHANISM: 'gssapi', KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'p' }),
    ).toEqual([
      'KAFKA_SASL_MECHANISM: KAFKA_SASL_MECHANISM must be one of scram-sha-512, scram-sha-256, plain',
    ]);
    const both = {
      KAFKA_SASL_MECHANISM: 'plain',
      KAFKA_SASL_USERNAME: 'u',
      KAFKA_SASL_PASSWORD: 'p',
      KAFKA_SASL_PASSWORD_FILE: file('password', 'p'),
    };
    expect(problems(both)).toEqual([expect.stringMatching(/^KAFKA_SASL_PASSWORD_FILE: .*not both/)]);
  });

  it('refuses a bad KAFKA_SSL, certificate files without KAFKA_SSL=true, and a certificate without its key', () => {
    expect(problems({ KAFKA_SSL: 'yes' })).toEqual([expect.stringMatching(/^KAFKA_SSL: /)]);
    expect(problems({ KAFKA_SSL_CA_FILE: '/etc/ca.pem' })).toEqual([
      'KAFKA_SSL: must be true when KAFKA_SSL_CA_FILE is set',
    ]);
    expect(problems({ KAFKA_SSL: 'true', KAFKA_SSL_CERT_FILE: '/etc/client.pem' })).toEqual([
      expect.stringMatching(/^KAFKA_SSL_KEY_FILE: required with KAFKA_SSL_CERT_FILE/),
    ]);
  });

  it('names an unreadable CA file, a file that is not PEM, and an empty password file', () => {
    const missing = join(dir, 'missing-ca.pem');
    const listed = problems({
      KAFKA_SSL: 'true',
      KAFKA_SSL_CA_FILE: missing,
      KAFKA_SSL_CERT_FILE: file('client.pem', 'not a certificate'),
      KAFKA_SSL_KEY_FILE: file('client.key', KEY),
      KAFKA_SASL_MECHANISM: 'scram-sha-512',
      KAFKA_SASL_USERNAME: 'u',
      KAFKA_SASL_PASSWORD_FILE: file('password', '\n'),
    });
    expect(listed).toEqual([
      expect.stringMatching(new RegExp(`^KAFKA_SSL_CA_FILE: cannot read ${missing}: ENOENT`)),
      expect.stringMatching(/^KAFKA_SSL_CERT_FILE: \S+client.pem holds no PEM certificate/),
      expect.stringMatching(/^KAFKA_SASL_PASSWORD_FILE: \S+password is empty$/),
    ]);
  });
});
