import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Command, CommanderError } from 'commander';
import { auditCommands } from './commands/audit';
import { domainCommands } from './commands/domain';
import { nodeCommands } from './commands/node';
import { quotaCommands } from './commands/quota';
import { reportCommand } from './commands/report';
import { taskQueueCommands } from './commands/taskqueue';
import { templateCommands } from './commands/template';
import { workloadCommands } from './commands/workload';
import { CliContext, CliIo } from './context';
import { EXIT, describeFailure } from './errors';
import { DEFAULT_ADDR } from './hub-client';
import { wholeNumber } from './values';

/** The version of the `hcn` package this CLI belongs to (its package.json, above the sources or the build). */
export function cliVersion(from: string = __dirname): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'hcn' && pkg.version) return pkg.version;
    }
    if (dirname(dir) === dir) return 'unknown';
  }
}

const EXIT_HELP = `
Environment:
  HCN_ADDR      hub address (default ${DEFAULT_ADDR}); --addr wins
  HCN_TOKEN     API token (sent as Authorization: Bearer); --token wins
  DATABASE_URL  PostgreSQL event store, for audit and report (or EVENTSTORE_URL for EventStoreDB)

Exit status:
  0  done
  1  the hub answered with an error (printed as CODE: message); audit verify: a chain is broken
  2  usage: unknown command or option, missing or bad argument, unreadable file
  3  the hub or the event log could not be reached (or answered 502/503/504); audit verify: could not check
  4  audit explain: the replayed decision differs from the recorded one
`;

/** The `hcn` command tree over one run's context. */
export function buildProgram(ctx: CliContext): Command {
  const program = new Command('hcn')
    .description(
      'Operate an HCN hub: nodes, workloads, quotas, domains, templates and task queues over its REST API; ' +
        'audit and compliance reports from the event log.',
    )
    .version(cliVersion(), '-V, --version', 'print the version')
    .option('--addr <url>', `hub address (env HCN_ADDR, default ${DEFAULT_ADDR})`)
    .option('--token <token>', 'API token (env HCN_TOKEN)')
    .option('--timeout <seconds>', 'how long to wait for the hub (default 30)', wholeNumber)
    .option('--json', 'print the raw JSON answer instead of a table')
    .helpOption('-h, --help', 'show help for a command')
    .addHelpText('after', EXIT_HELP)
    .configureHelp({ showGlobalOptions: true, sortSubcommands: false })
    .configureOutput({
      writeOut: (text) => ctx.out(text),
      writeErr: (text) => ctx.err(text),
      outputError: (text, write) => write(`hcn: ${text.replace(/^error: /, '')}`),
    })
    .showSuggestionAfterError(true)
    .showHelpAfterError("(add --help for this command's usage)")
    .exitOverride();
  for (const command of [
    nodeCommands(ctx),
    workloadCommands(ctx),
    quotaCommands(ctx),
    domainCommands(ctx),
    templateCommands(ctx),
    taskQueueCommands(ctx),
    auditCommands(ctx),
    reportCommand(ctx),
  ])
    program.addCommand(inherit(command, program));
  return program;
}

/**
 * Gives a command built on its own (and its subcommands) the program's settings: output, exit override,
 * help configuration (`command()` copies them itself, `addCommand` does not).
 */
function inherit(command: Command, parent: Command): Command {
  command.copyInheritedSettings(parent);
  for (const sub of command.commands) inherit(sub, parent);
  return command;
}

/** Runs one command line; resolves with the exit status (it never exits the process itself). */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const ctx = new CliContext(io);
  const program = buildProgram(ctx);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return ctx.status;
  } catch (error) {
    if (error instanceof CommanderError) {
      // help and --version end with 0; every parse error (already printed) is a usage error
      return error.exitCode === 0 ? EXIT.OK : EXIT.USAGE;
    }
    const { line, status } = describeFailure(error);
    ctx.err(`hcn: ${line}\n`);
    if (status === EXIT.USAGE) ctx.err("(add --help for this command's usage)\n");
    return status;
  }
}
