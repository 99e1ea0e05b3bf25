#!/usr/bin/env node
// A GridCore-style queue worker for specs, run as a process workload: `node <absolute path of this file>`.
// Reads GridCore's env contract: INPUT_REDIS_URL, OUTPUT_REDIS_URL (default: the input's), INPUT_QUEUE,
// OUTPUT_QUEUE, TASK_NAME, NODE_ID, INSTANCE_ID. Pops items (RPOP: FIFO for producers that LPUSH) and LPUSHes one
// JSON result per item to OUTPUT_QUEUE: {"item","task","node","instance","pid"}. Exits when the input is empty.
// Options:
//   WORKER_DELAY_MS        pause per item before its result is pushed (default 0)
//   WORKER_IDLE_MS         how long the input must stay empty before the worker exits (default 0; -1: never)
//   WORKER_EXIT_CODE       exit status once the input is empty (default 0)
//   WORKER_IGNORE_SIGTERM  1: ignore SIGTERM (only SIGKILL ends it); else SIGTERM finishes the current item, exits 0
// ioredis is found from this file's own folder (the repository's node_modules), whatever the cwd or NODE_PATH.
'use strict';
const Redis = require('ioredis');

const env = process.env;
const log = (line) => console.log(`queue-worker[${env.NODE_ID ?? '-'}/${env.INSTANCE_ID ?? '-'}]: ${line}`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const inputUrl = env.INPUT_REDIS_URL;
const outputUrl = env.OUTPUT_REDIS_URL || inputUrl;
const inputQueue = env.INPUT_QUEUE;
const outputQueue = env.OUTPUT_QUEUE;
const delayMs = Number(env.WORKER_DELAY_MS || 0);
const idleMs = Number(env.WORKER_IDLE_MS || 0);
const exitCode = Number(env.WORKER_EXIT_CODE || 0);
const ignoreTerm = env.WORKER_IGNORE_SIGTERM === '1';

if (!inputUrl || !inputQueue || !outputQueue) {
  console.error('queue-worker: INPUT_REDIS_URL, INPUT_QUEUE and OUTPUT_QUEUE are required');
  process.exit(2);
}

let stopping = false;
process.on('SIGTERM', () => {
  if (ignoreTerm) return log('SIGTERM ignored (WORKER_IGNORE_SIGTERM=1)');
  log('SIGTERM: finishing the current item');
  stopping = true;
});

/** A client that gives up after about five seconds without Redis (the worker then exits 1). */
function connect(url) {
  const client = new Redis(url, {
    maxRetriesPerRequest: 2,
    connectTimeout: 3000,
    retryStrategy: (attempt) => (attempt > 10 ? null : 500),
  });
  client.on('error', () => undefined); // the failing command says it
  return client;
}

async function main() {
  const input = connect(inputUrl);
  const output = outputUrl === inputUrl ? input : connect(outputUrl);
  log(`started: ${inputQueue} -> ${outputQueue} (task ${env.TASK_NAME ?? '-'}, pid ${process.pid})`);
  let processed = 0;
  let emptySince;
  while (!stopping) {
    const item = await input.rpop(inputQueue);
    if (item === null) {
      emptySince ??= Date.now();
      if (idleMs >= 0 && Date.now() - emptySince >= idleMs) break;
      await sleep(Math.min(100, idleMs >= 0 ? idleMs : 100));
      continue;
    }
    emptySince = undefined;
    if (delayMs > 0) await sleep(delayMs);
    const result = {
      item,
      task: env.TASK_NAME ?? '',
      node: env.NODE_ID ?? '',
      instance: env.INSTANCE_ID ?? '',
      pid: process.pid,
    };
    await output.lpush(outputQueue, JSON.stringify(result));
    processed += 1;
  }
  log(`${stopping ? 'stopped by SIGTERM' : 'input empty'} after ${processed} items`);
  await Promise.all([...new Set([input, output])].map((c) => c.quit().catch(() => c.disconnect())));
  return stopping ? 0 : exitCode;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(`queue-worker: ${error && error.message ? error.message : error}`);
    process.exit(1);
  },
);
