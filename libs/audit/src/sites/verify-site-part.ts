import {
  HcnEvent,
  RecordedHcnEvent,
  SiteChainPart,
  StreamHead,
  hcnEventRegistry,
  parsePosition,
  workloadStream,
} from '@hcn/contracts';
import { ChainChecker, RawEvent, decodeEvent } from '@hcn/eventstore';
import type { SiteHop, SitePartProblem, SitePartVerification } from './stitched.model';

/** Who asks: this site's id and the workload of its own that was handed over. */
export interface AskingSite {
  readonly siteId: string;
  readonly workloadId: string;
}

/** A checked part: the verification and, when every event decoded, the events (for the chain). */
export interface CheckedSitePart {
  readonly verification: SitePartVerification;
  readonly events?: RecordedHcnEvent[];
}

/** The stored events of a part as the checker reads them (revision order as sent). */
function rawEventsOf(part: SiteChainPart): RawEvent[] {
  return part.events.map((e) => ({ ...e, streamId: part.streamId, position: parsePosition(e.position) }));
}

/** Recomputes the part's hash chain from its stream's genesis; every broken link is a problem. */
async function chainProblems(
  raw: readonly RawEvent[],
): Promise<{ checked: number; problems: SitePartProblem[] }> {
  // a workload stream has no retention: a stream that does not start at revision 0 is a break
  const checker = new ChainChecker({}, async () => false);
  for (const event of raw) await checker.check(event);
  const report = checker.summary({});
  const problems: SitePartProblem[] = report.broken.map((broken) => ({ kind: 'chain', broken }));
  if (report.unhashedEvents > 0)
    problems.push({ kind: 'origin', detail: `${report.unhashedEvents} event(s) without hash links` });
  return { checked: report.eventsChecked, problems };
}

/** The hash stored with an event (what its successor links to). */
function storedHash(event: RawEvent | undefined): string | null {
  const hash = (event?.metadata as { hash?: unknown } | undefined)?.hash;
  return typeof hash === 'string' ? hash : null;
}

/** The last event as a head, compared with the head the site stated. */
function headProblems(
  raw: readonly RawEvent[],
  stated: StreamHead,
): {
  head: StreamHead | null;
  problems: SitePartProblem[];
} {
  const last = raw[raw.length - 1];
  const hash = storedHash(last);
  const head = last && hash ? { revision: last.revision, hash } : null;
  const same = head !== null && head.revision === stated.revision && head.hash === stated.hash;
  return { head, problems: same ? [] : [{ kind: 'head', expected: stated, actual: head }] };
}

/** Heads this log recorded, against the stream at those revisions (a later revision than sent is missing). */
function anchorProblems(raw: readonly RawEvent[], anchors: readonly StreamHead[]): SitePartProblem[] {
  const byRevision = new Map(raw.map((e) => [e.revision, storedHash(e)]));
  return anchors
    .filter((a) => byRevision.get(a.revision) !== a.hash)
    .map((a) => ({
      kind: 'anchor',
      revision: a.revision,
      expected: a.hash,
      actual: byRevision.get(a.revision) ?? null,
    }));
}

/** The part is this delegation's: the site asked, the stream of the workload it names, handed over by this site. */
function originProblems(
  part: SiteChainPart,
  hop: SiteHop,
  asking: AskingSite,
  first: RecordedHcnEvent | undefined,
): SitePartProblem[] {
  const found: string[] = [];
  if (part.siteId !== hop.siteId) found.push(`answered by site ${part.siteId}, asked ${hop.siteId}`);
  if (part.delegationId !== hop.delegationId)
    found.push(`delegation ${part.delegationId}, asked ${hop.delegationId}`);
  if (part.streamId !== workloadStream(part.workloadId))
    found.push(`stream ${part.streamId} is not the workload's`);
  if (hop.remoteWorkloadId && hop.remoteWorkloadId !== part.workloadId)
    found.push(`workload ${part.workloadId}, recorded ${hop.remoteWorkloadId}`);
  const from = first?.type === 'WorkloadSubmitted' ? first.data.delegatedFrom : undefined;
  const expected = { siteId: asking.siteId, workloadId: asking.workloadId, delegationId: hop.delegationId };
  if (first && (!from || Object.entries(expected).some(([k, v]) => from[k as keyof typeof from] !== v)))
    found.push(
      `the workload was not submitted by delegation ${hop.delegationId} of ${asking.siteId}/${asking.workloadId}`,
    );
  return found.map((detail) => ({ kind: 'origin', detail }));
}

/** Decodes the events with this site's registry; the first it refuses is a problem (and no chain is built). */
function decodeAll(raw: readonly RawEvent[]): { events?: RecordedHcnEvent[]; problems: SitePartProblem[] } {
  const events: RecordedHcnEvent[] = [];
  for (const event of raw) {
    try {
      events.push(decodeEvent<HcnEvent>(hcnEventRegistry, event));
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      return { problems: [{ kind: 'decode', eventId: event.eventId, detail }] };
    }
  }
  return { events, problems: [] };
}

/**
 * Checks another site's part of a chain (pure: no I/O): recomputes its stream's hash chain from the genesis
 * (content hashes, links, no gaps), compares the last event with the head the site states and with every head this
 * log recorded (`hop.anchors`), and checks that the stream is the workload this site handed over by that delegation.
 * Events are decoded with this site's registry, so the chain built from them is the chain whose links were checked.
 */
export async function verifySitePart(
  part: SiteChainPart,
  hop: SiteHop,
  asking: AskingSite,
): Promise<CheckedSitePart> {
  const raw = rawEventsOf(part);
  const chain = await chainProblems(raw);
  const head = headProblems(raw, part.head);
  const decoded = decodeAll(raw);
  const problems = [
    ...chain.problems,
    ...head.problems,
    ...anchorProblems(raw, hop.anchors),
    ...originProblems(part, hop, asking, decoded.events?.[0]),
    ...decoded.problems,
  ];
  if (raw.length === 0) problems.push({ kind: 'origin', detail: 'the site sent no events' });
  const verification: SitePartVerification = {
    ok: problems.length === 0,
    eventsChecked: chain.checked,
    head: head.head,
    anchorsChecked: hop.anchors.length,
    problems,
  };
  return decoded.events ? { verification, events: decoded.events } : { verification };
}
