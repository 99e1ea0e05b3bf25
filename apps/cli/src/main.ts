import { HcnError } from '@hcn/contracts';
import type { EventStore } from '@hcn/eventstore';
import { writeFileSync } from 'node:fs';
import { Args, option, parseArgs, usage } from './args';
import { Outcome, audit } from './commands/audit';
import { report } from './commands/report';
import { openLog } from './store';

const HELP = `hcn — audit and compliance from the HCN event log (reads the log directly: DATABASE_URL or EVENTSTORE_URL)

  hcn audit replay <workloadId> [--json]              every hop, rejection, placement and allocation outcome
  hcn audit explain <workloadId> (--hop N | --decision D) [--json]
                                                      rebuild the snapshot and re-run the recorded policy (exit 3 on mismatch)
  hcn audit node <nodeId> [--at ISO]                  a node as of an instant (also: domain <id> with its member
                                                      nodes, capacity and reservations; quota <namespace>)
  hcn audit verify [--stream S] [--from ISO] [--to ISO]   hash-chain verification (exit 1 when broken)
  hcn report <compliance|${'usage|placements|residencyViolations|quota|delegations|blacklistHits|availability'}>
             (--month YYYY-MM | --from ISO --to ISO) [--format json|csv|html] [--out FILE]

  --quiet hides the progress bars (stderr). Exit: 0 ok, 1 error, 2 usage, 3 decision replay mismatch.
`;

async function run(args: Args, store: EventStore): Promise<Outcome> {
  switch (args.positional[0]) {
    case 'audit':
      return audit(store, args);
    case 'report':
      return report(store, args);
    default:
      throw usage(`unknown command ${args.positional[0]}`);
  }
}

function fail(error: unknown): number {
  if (error instanceof HcnError) {
    process.stderr.write(`hcn: ${error.code}: ${error.message}\n`);
    if (error.code === 'CLI.USAGE') process.stderr.write(`\n${HELP}`);
    return error.code === 'CLI.USAGE' ? 2 : 1;
  }
  process.stderr.write(`hcn: ${error instanceof Error ? error.message : String(error)}\n`);
  return 1;
}

async function main(argv: readonly string[]): Promise<number> {
  let store: EventStore | undefined;
  try {
    const args = parseArgs(argv);
    if (args.options.help || args.positional.length === 0) {
      process.stdout.write(HELP);
      return args.positional.length === 0 && !args.options.help ? 2 : 0;
    }
    store = await openLog();
    const outcome = await run(args, store);
    const out = option(args, 'out');
    if (out) writeFileSync(out, outcome.output);
    else process.stdout.write(outcome.output);
    return outcome.status;
  } catch (error) {
    return fail(error);
  } finally {
    await store?.close().catch(() => undefined);
  }
}

main(process.argv.slice(2)).then((status) => process.exit(status));
