import type { DecisionReplay, DecisionSelector } from '@hcn/audit';
import { Command } from 'commander';
import type { CliContext } from '../context';
import { CliError, EXIT, usageError } from '../errors';
import { useLog } from '../log-command';
import { ProgressBar } from '../progress';
import { wholeNumber } from '../values';

const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

function explainText(r: DecisionReplay): string {
  const lines = [
    `decision ${r.decisionIndex} of ${r.workloadId} (instance ${r.instance}, attempt ${r.attempt}) at ${r.position}`,
    `snapshot rebuilt from ${r.clusterEvents} cluster events: ${r.snapshot.domains} domains, ${r.snapshot.nodes} nodes`,
    `recorded: ${JSON.stringify(r.recorded.outcome)}`,
    `replayed: ${JSON.stringify(r.replayed.outcome)}`,
    r.matches ? 'MATCH: the replayed decision equals the recorded one' : 'MISMATCH:',
    ...r.differences.map((d) => `  ${d}`),
  ];
  return `${lines.join('\n')}\n`;
}

function selectorOf(opts: { hop?: number; decision?: number }): DecisionSelector {
  if ((opts.hop === undefined) === (opts.decision === undefined))
    throw usageError('give exactly one of --hop N or --decision D');
  return opts.hop !== undefined ? { hop: opts.hop } : { decision: opts.decision as number };
}

/** The dotted code of a library error, if it has one. */
function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.includes('.') ? code : 'AUDIT.VERIFY_FAILED';
}

/** `hcn audit replay|explain|node|domain|quota|verify`: audit straight from the event log. */
export function auditCommands(ctx: CliContext): Command {
  const audit = new Command('audit').description(
    'audit from the event log itself (DATABASE_URL or EVENTSTORE_URL; never the hub or its read models)',
  );
  const instant = async (at: string | undefined): Promise<number> =>
    at === undefined ? ctx.io.now() : (await import('@hcn/audit')).parseInstant(at);

  audit
    .command('replay')
    .description(
      'the delegation chain of a workload: every hop, rejection, placement and outcome; hand-overs to other ' +
        "sites stitched with those sites' chains (read through the hub, checked here against their hash chains)",
    )
    .argument('<workloadId>')
    .action(async (id: string, _opts, cmd: Command) => {
      const { renderStitchedText } = await import('@hcn/audit');
      const { stitchedChainFromLog } = await import('./audit-sites');
      const chain = await useLog(ctx, (store) => stitchedChainFromLog(store, id, ctx.hub(cmd)));
      ctx.out(ctx.json(cmd) ? json(chain) : renderStitchedText(chain));
    });

  audit
    .command('explain')
    .description(
      'rebuild the snapshot a decision saw and re-run the recorded policy (exit 4 when the result differs)',
    )
    .argument('<workloadId>')
    .option('--hop <n>', 'the decision of this hop', wholeNumber)
    .option('--decision <n>', 'the n-th decision of the workload', wholeNumber)
    .option('-q, --quiet', 'no progress bar')
    .action(async (id: string, opts, cmd: Command) => {
      const selector = selectorOf(opts);
      const { explainDecision, readWorkload } = await import('@hcn/audit');
      const result = await useLog(ctx, async (store) => {
        const events = await readWorkload(store, id);
        const bar = new ProgressBar('reading cluster events', !!opts.quiet);
        return explainDecision(store, events, selector, { onProgress: bar.update.bind(bar) });
      });
      ctx.out(ctx.json(cmd) ? json(result) : explainText(result));
      ctx.status = result.matches ? EXIT.OK : EXIT.MISMATCH;
    });

  for (const [kind, argument, summary] of [
    ['node', '<nodeId>', 'a node as of an instant (status, domain, resources, reservations)'],
    ['domain', '<domainId>', 'a domain as of an instant, with its member nodes, capacity and reservations'],
    ['quota', '<namespace>', "a namespace's quota as of an instant (limits, holders, usage)"],
  ] as const) {
    audit
      .command(kind)
      .description(`${summary} (JSON)`)
      .argument(argument)
      .option('--at <iso>', 'the instant (default now)')
      .action(async (id: string, opts, _cmd: Command) => {
        const lib = await import('@hcn/audit');
        const at = await instant(opts.at);
        const fold = { node: lib.nodeAt, domain: lib.domainAt, quota: lib.quotaAt }[kind];
        ctx.out(json(await useLog(ctx, (store): Promise<unknown> => fold(store, id, at))));
      });
  }

  audit
    .command('verify')
    .description(
      'recompute the hash chains of the log and name the first broken link (JSON report). Exit 0: intact; ' +
        '1: a chain is broken; 3: could not check (log unreachable or not configured, no such stream, read failed)',
    )
    .option('--stream <id>', 'only this stream')
    .option(
      '--workload <id>',
      "only this workload's stream, and the streams of the sites it was delegated to (exit 3 when a site could not be read)",
    )
    .option('--from <iso>', 'events recorded from this instant')
    .option('--to <iso>', 'events recorded before this instant')
    .option(
      '--sites',
      "also every other site's part of each workload handed to another site (exit 1 when one does not hold, 3 when one could not be read)",
    )
    .option('-q, --quiet', 'no progress bar')
    .action(async (opts, cmd: Command) => {
      if (opts.workload !== undefined) return verifyWorkload(opts.workload, cmd);
      const { parseInstant } = await import('@hcn/audit');
      const from = opts.from === undefined ? undefined : new Date(parseInstant(opts.from, 'from'));
      const to = opts.to === undefined ? undefined : new Date(parseInstant(opts.to, 'to'));
      const { verifyHashChain } = await import('@hcn/eventstore');
      const bar = new ProgressBar('verifying hash chains', !!opts.quiet);
      const report = await useLog(ctx, async (store) => {
        try {
          return await verifyHashChain(store, { streamId: opts.stream, from, to }, (p) =>
            bar.update({ read: p.eventsScanned, total: p.approximateTotal, done: false }),
          );
        } catch (error) {
          // nothing was judged: not "broken", but "could not check"
          const message = error instanceof Error ? error.message : String(error);
          throw new CliError(codeOf(error), `could not check: ${message}`, EXIT.UNREACHABLE);
        }
      });
      bar.update({ read: report.eventsChecked, done: true });
      if (!opts.sites) {
        ctx.out(json(report));
        ctx.status = report.ok ? EXIT.OK : EXIT.ERROR;
        return;
      }
      const { verifyAllSitesFromLog } = await import('./audit-sites');
      const sites = await useLog(ctx, (store) => verifyAllSitesFromLog(store, ctx.hub(cmd)));
      ctx.out(json({ ...report, ok: report.ok && sites.ok, sites }));
      const broken = !report.ok || sites.brokenCount > 0;
      ctx.status = broken ? EXIT.ERROR : sites.ok ? EXIT.OK : EXIT.UNREACHABLE;
    });

  /** `verify --workload`: the stitched chain's streams, here and at the sites it went to. */
  async function verifyWorkload(id: string, cmd: Command): Promise<void> {
    const { stitchedExit, verifyStitchedFromLog } = await import('./audit-sites');
    const report = await useLog(ctx, async (store) => {
      try {
        return await verifyStitchedFromLog(store, id, ctx.hub(cmd));
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        throw new CliError(codeOf(error), `could not check: ${message}`, EXIT.UNREACHABLE);
      }
    });
    ctx.out(json(report));
    ctx.status = stitchedExit(report);
  }

  return audit;
}
