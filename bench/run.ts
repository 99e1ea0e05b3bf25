/**
 * `npm run bench -- <name>`: runs one benchmark (or all with no name) and writes its figures to
 * bench/results/<name>.json. Benchmarks start the backing services they need, like `npm test` does.
 */
const benches: Record<string, () => Promise<void>> = {
  audit: async () => (await import('./audit.bench')).run(),
  containers: async () => (await import('./containers.bench')).run(),
  dashboard: async () => (await import('./dashboard.bench')).run(),
  'decision-replay': async () => (await import('./decision-replay.bench')).run(),
  devices: async () => (await import('./devices.bench')).run(),
  eventstore: async () => (await import('./eventstore.bench')).run(),
  'federation-placement': async () => (await import('./federation-placement.bench')).run(),
  'federation-traffic': async () => (await import('./federation-traffic.bench')).run(),
  scavenge: async () => (await import('./scavenge.bench')).run(),
  'idle-fleet': async () => (await import('./idle-fleet.bench')).run(),
  heartbeats: async () => (await import('./heartbeats.bench')).run(),
  'nodes-runtime': async () => (await import('./nodes-runtime.bench')).run(),
  placement: async () => (await import('./placement.bench')).run(),
  'placement-floor': async () => (await import('./placement-floor.bench')).run(),
  rebuild: async () => (await import('./rebuild.bench')).run(),
  'record-size': async () => (await import('./record-size.bench')).run(),
  scheduler: async () => (await import('./scheduler.bench')).run(),
  services: async () => (await import('./services.bench')).run(),
  soak: async () => (await import('./soak.bench')).run(),
  'taskqueue-fanout': async () => (await import('./taskqueue-fanout.bench')).run(),
  vramguard: async () => (await import('./vramguard.bench')).run(),
};

process.once('SIGINT', () => process.exit(130));
process.once('SIGTERM', () => process.exit(143));

async function main(): Promise<void> {
  const names = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  const selected = names.length > 0 ? names : Object.keys(benches);
  for (const name of selected) {
    const bench = benches[name];
    if (!bench) {
      console.error(`Unknown benchmark "${name}". Known: ${Object.keys(benches).join(', ')}`);
      process.exit(2);
    }
    console.log(`\n=== bench: ${name} ===`);
    await bench();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
