import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Secrets generated on the first embedded run and kept in the data directory. */
export function embeddedSecrets(dataDir: string): {
  joinToken: string;
  agentSecret: string;
  adminToken: string;
  postgresPassword: string;
} {
  const path = join(dataDir, 'secrets.json');
  const kept = existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : {};
  if (kept.adminToken && kept.postgresPassword) return kept;
  const secrets = {
    joinToken: randomBytes(24).toString('base64url'),
    agentSecret: randomBytes(32).toString('base64url'),
    adminToken: randomBytes(24).toString('base64url'),
    postgresPassword: randomBytes(24).toString('base64url'),
    ...kept,
  };
  writeFileSync(path, JSON.stringify(secrets), { mode: 0o600 });
  return secrets;
}
