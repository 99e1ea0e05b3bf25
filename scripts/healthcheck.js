// Health check of the HCN image (the Dockerfile's HEALTHCHECK and docker-compose.yml's healthchecks).
//   node scripts/healthcheck.js [hub|agent|projector]
// Exit 0: healthy; 1: not (one line on stdout says why either way). Without an argument the app is read from
// PID 1's command line (node itself, or docker-init / tini in front of it with `init: true`).
//   hub        GET /readyz on its own listener (HCN_HTTP_HOST / HCN_HTTP_PORT; 0.0.0.0 and :: are asked on
//              loopback) answers 200: event store, read models and subscriptions ready
//   agent      its data directory (HCN_DATA_DIR) is writable and the broker acknowledged one of its reports
//              (a heartbeat at the least) within HCN_HEALTHCHECK_MAX_SILENCE_SECONDS (120): outbox/outbox.sent
//              is rewritten on every acknowledgement
//   projector  no listener of its own yet: healthy while its process runs (said so in the line)
const { accessSync, constants, readFileSync, statSync } = require('node:fs');
const { join, resolve } = require('node:path');

const APPS = ['hub', 'agent', 'projector'];

/** The app a command line starts (`.../apps/<app>/src/main.(js|ts)`), or undefined. */
function detectApp(cmdline) {
  const match = /apps\/(hub|agent|projector)\/src\/main\.[jt]s/.exec(cmdline);
  return match ? match[1] : undefined;
}

/** The address the hub's listener is reached at from inside its container. */
function hubProbeUrl(env) {
  const host = env.HCN_HTTP_HOST || '127.0.0.1';
  const local = host === '0.0.0.0' || host === '::' || host === '[::]' ? '127.0.0.1' : host;
  const port = env.HCN_HTTP_PORT || '8080';
  return `http://${local.includes(':') ? `[${local}]` : local}:${port}/readyz`;
}

/** Hub: /readyz answers 200 within the timeout. */
async function checkHub(env, timeoutMs = 4000) {
  const url = hubProbeUrl(env);
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    const body = await response.text();
    return response.status === 200
      ? { healthy: true, reason: `hub ready (${url})` }
      : { healthy: false, reason: `hub not ready: ${url} answered ${response.status} ${body.slice(0, 300)}` };
  } catch (error) {
    return { healthy: false, reason: `hub unreachable at ${url}: ${error.message}` };
  }
}

/** Agent: a writable data directory and a report acknowledged by the broker lately. */
function checkAgent(env, now = Date.now()) {
  const dataDir = resolve(env.HCN_DATA_DIR || './data/agent');
  try {
    accessSync(dataDir, constants.W_OK);
  } catch (error) {
    return { healthy: false, reason: `agent data directory ${dataDir} is not writable: ${error.code}` };
  }
  const maxSilence = Number(env.HCN_HEALTHCHECK_MAX_SILENCE_SECONDS || 120);
  const cursor = join(dataDir, 'outbox', 'outbox.sent');
  let acknowledged;
  try {
    acknowledged = statSync(cursor).mtimeMs;
  } catch {
    return { healthy: false, reason: `agent has delivered no report yet (no ${cursor})` };
  }
  const silence = Math.round((now - acknowledged) / 1000);
  return silence <= maxSilence
    ? { healthy: true, reason: `agent delivered a report ${silence} s ago` }
    : { healthy: false, reason: `agent delivered no report for ${silence} s (more than ${maxSilence} s)` };
}

/** Checks one app; `app` undefined: the one PID 1 runs. */
async function checkHealth(app, env = process.env) {
  const which = app ?? detectApp(readCmdline(1));
  switch (which) {
    case 'hub':
      return checkHub(env);
    case 'agent':
      return checkAgent(env);
    case 'projector':
      return { healthy: true, reason: 'projector running (it has no health endpoint)' };
    default:
      return { healthy: false, reason: `unknown app ${which ?? '(none found in PID 1 command line)'}` };
  }
}

function readCmdline(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return '';
  }
}

module.exports = { APPS, checkAgent, checkHealth, checkHub, detectApp, hubProbeUrl };

if (require.main === module) {
  const app = process.argv[2];
  if (app !== undefined && !APPS.includes(app)) {
    console.log(`usage: node scripts/healthcheck.js [${APPS.join('|')}]`);
    process.exit(1);
  }
  checkHealth(app).then(
    (result) => {
      console.log(result.reason);
      process.exit(result.healthy ? 0 : 1);
    },
    (error) => {
      console.log(`health check failed: ${error.message}`);
      process.exit(1);
    },
  );
}
