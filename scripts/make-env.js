// Writes `.env` for docker-compose.yml from `.env.example`, with a fresh random value for every secret the
// example leaves empty (HCN_JOIN_TOKEN, HCN_AGENT_SECRET, HCN_ADMIN_TOKEN, POSTGRES_PASSWORD, REDIS_PASSWORD).
//   node scripts/make-env.js [--out FILE] [--force]
// An existing file is kept unless --force (its secrets protect data already written with them).
const { randomBytes } = require('node:crypto');
const { existsSync, readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

/** Variables of .env.example that are secrets: generated here when empty, never given a default in compose. */
const SECRET_NAMES = [
  'HCN_JOIN_TOKEN',
  'HCN_AGENT_SECRET',
  'HCN_ADMIN_TOKEN',
  'POSTGRES_PASSWORD',
  'REDIS_PASSWORD',
];

/** A random secret: 32 bytes as hex (URL-safe, so it can sit inside DATABASE_URL and redis:// URLs). */
function newSecret() {
  return randomBytes(32).toString('hex');
}

/** The example's text with every empty `SECRET=` line given a new secret; comments and other lines kept. */
function fillSecrets(example, secret = newSecret) {
  return example
    .split('\n')
    .map((line) => {
      const match = /^([A-Z0-9_]+)=\s*$/.exec(line);
      return match && SECRET_NAMES.includes(match[1]) ? `${match[1]}=${secret()}` : line;
    })
    .join('\n');
}

/** Parses `.env` text as compose does for plain lines: `NAME=value`, `#` comments, optional quotes. */
function parseEnv(text) {
  const env = {};
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (!match) throw new Error(`not a NAME=value line: ${line}`);
    const value = match[2].trim();
    const quoted = /^(['"])(.*)\1$/.exec(value);
    env[match[1]] = quoted ? quoted[2] : value.replace(/\s+#.*$/, '');
  }
  return env;
}

module.exports = { SECRET_NAMES, fillSecrets, newSecret, parseEnv };

if (require.main === module) {
  const root = join(__dirname, '..');
  const args = process.argv.slice(2);
  const outIndex = args.indexOf('--out');
  const out = outIndex >= 0 ? args[outIndex + 1] : join(root, '.env');
  if (!out) {
    console.error('usage: node scripts/make-env.js [--out FILE] [--force]');
    process.exit(2);
  }
  if (existsSync(out) && !args.includes('--force')) {
    console.error(`${out} exists; kept (--force writes a new one with new secrets)`);
    process.exit(1);
  }
  writeFileSync(out, fillSecrets(readFileSync(join(root, '.env.example'), 'utf8')), { mode: 0o600 });
  console.log(`wrote ${out} (new secrets for ${SECRET_NAMES.join(', ')})`);
}
