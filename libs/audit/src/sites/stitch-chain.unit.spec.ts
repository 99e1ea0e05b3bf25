import { NewEvent, SiteChainPart, formatPosition, workloadStream } from '@hcn/contracts';
import { MemoryEventStore } from '@hcn/eventstore';
import { buildChain } from '../chain/build-chain';
import { renderStitchedText } from './render-stitched';
import { SiteChainSource, sitePartsOf, stitchChain, verifyStitched } from './stitch-chain';
import type { SiteHop } from './stitched.model';

const uuid = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const PARENT_WORKLOAD = uuid(1);
const CHILD_WORKLOAD = uuid(2);
const DELEGATION = uuid(3);
const NODE = uuid(4);
const asking = { siteId: 'parent', workloadId: PARENT_WORKLOAD };
const hop: SiteHop = {
  siteId: 'child-a',
  relation: 'child',
  delegationId: DELEGATION,
  namespace: 'default',
  anchors: [],
};
let ids = 100;

function event(type: string, data: unknown): NewEvent {
  const id = uuid(ids++);
  const metadata = {
    correlationId: CHILD_WORKLOAD,
    causationId: id,
    actor: { kind: 'user' as const, id: 'site:parent' },
    occurredAt: new Date(Date.UTC(2026, 10, 1, 0, 0, ids)).toISOString(),
  };
  return { eventId: id, type, data, metadata };
}

/** The child's workload stream as its store keeps it (hashed), handed over as the federation API does. */
async function childPart(): Promise<SiteChainPart> {
  const store = new MemoryEventStore();
  const spec = {
    name: 'job',
    namespace: 'default',
    command: 'sh',
    resources: { cpuMillis: 500, memoryBytes: 2 ** 28 },
  };
  const from = { siteId: 'parent', workloadId: PARENT_WORKLOAD, delegationId: DELEGATION };
  const base = { workloadId: CHILD_WORKLOAD, allocationId: uuid(5), instance: 0, attempt: 0, generation: 1 };
  const stream = workloadStream(CHILD_WORKLOAD);
  await store.append(
    stream,
    [event('WorkloadSubmitted', { workloadId: CHILD_WORKLOAD, spec, delegatedFrom: from })],
    'no_stream',
  );
  await store.append(
    stream,
    [
      event('AllocationPlaced', {
        ...base,
        nodeId: NODE,
        domainId: 'child-root',
        resources: { cpuMillis: 500, memoryBytes: 2 ** 28 },
      }),
    ],
    0,
  );
  const startedAt = new Date(Date.UTC(2026, 10, 1, 0, 1)).toISOString();
  await store.append(stream, [event('AllocationStarted', { ...base, nodeId: NODE, pid: 42, startedAt })], 1);
  const { events } = await store.readRaw({ streamId: stream, maxCount: 100 });
  const wire = events.map(({ streamId: _s, position, ...e }) => ({
    ...e,
    position: formatPosition(position),
  }));
  const last = wire[wire.length - 1];
  const head = { revision: last.revision, hash: (last.metadata as { hash: string }).hash };
  return {
    siteId: 'child-a',
    delegationId: DELEGATION,
    workloadId: CHILD_WORKLOAD,
    streamId: stream,
    head,
    events: wire,
  };
}

const source = (part: SiteChainPart | Error): SiteChainSource => ({
  fetch: async () => {
    if (part instanceof Error) throw part;
    return part;
  },
});

/** A copy of the part with event `i`'s data changed as `edit` says (what an UPDATE of the child's row does). */
function tampered(
  part: SiteChainPart,
  i: number,
  edit: (data: Record<string, unknown>) => void,
): SiteChainPart {
  const copy = structuredClone(part);
  edit(copy.events[i].data as Record<string, unknown>);
  return copy;
}

describe('stitched chains across sites', () => {
  it('given an intact child stream, when stitched, then the child chain is rebuilt from the checked events', async () => {
    const part = await childPart();
    const [stitched] = await sitePartsOf([hop], asking, source(part));
    expect(stitched.verification).toMatchObject({
      ok: true,
      eventsChecked: 3,
      head: part.head,
      problems: [],
    });
    expect(stitched.chain?.decisions[0].outcome).toMatchObject({ kind: 'placed', nodeId: NODE });
    expect(stitched.chain?.timeline.map((e) => e.entry)).toEqual(['request', 'decision', 'allocation']);
    expect(stitched).toMatchObject({ workloadId: CHILD_WORKLOAD, head: part.head });
  });

  it('given a changed event in the child stream, when verified, then the broken link is reported', async () => {
    const part = tampered(await childPart(), 1, (d) => (d.domainId = 'elsewhere'));
    const [stitched] = await sitePartsOf([hop], asking, source(part));
    expect(stitched.verification?.ok).toBe(false);
    expect(stitched.verification?.problems).toEqual([
      expect.objectContaining({
        kind: 'chain',
        broken: expect.objectContaining({ revision: 1, reason: 'content' }),
      }),
    ]);
  });

  it('given a child stream rewritten with fresh hashes, when an anchor was recorded, then the anchor differs', async () => {
    const genuine = await childPart();
    const anchors = [{ revision: 1, hash: (genuine.events[1].metadata as { hash: string }).hash }];
    // a stream written again from scratch (consistent links) is another stream: every hash differs
    ids += 50;
    const rewritten = await childPart();
    const [stitched] = await sitePartsOf([{ ...hop, anchors }], asking, source(rewritten));
    expect(stitched.verification?.problems).toEqual([
      { kind: 'anchor', revision: 1, expected: anchors[0].hash, actual: expect.any(String) },
    ]);
    const [intact] = await sitePartsOf([{ ...hop, anchors }], asking, source(genuine));
    expect(intact.verification).toMatchObject({ ok: true, anchorsChecked: 1 });
  });

  it('given a head the events do not end in, or a dropped event, then both are reported', async () => {
    const part = await childPart();
    const moved = { ...part, head: { ...part.head, revision: 5 } };
    const [head] = await sitePartsOf([hop], asking, source(moved));
    expect(head.verification?.problems.map((p) => p.kind)).toEqual(['head']);
    const dropped = { ...part, events: [part.events[0], part.events[2]] };
    const [gap] = await sitePartsOf([hop], asking, source(dropped));
    expect(gap.verification?.problems).toEqual([
      expect.objectContaining({ kind: 'chain', broken: expect.objectContaining({ reason: 'gap' }) }),
    ]);
  });

  it("given another delegation's stream, when verified, then its origin is reported", async () => {
    const part = await childPart();
    const other = { ...hop, delegationId: uuid(9) };
    const [stitched] = await sitePartsOf([other], { ...asking }, source(part));
    expect(stitched.verification?.problems.map((p) => p.kind)).toEqual(['origin', 'origin']);
    const [foreign] = await sitePartsOf(
      [hop],
      { siteId: 'other', workloadId: PARENT_WORKLOAD },
      source(part),
    );
    expect(foreign.verification?.problems).toEqual([
      { kind: 'origin', detail: expect.stringContaining('not submitted') },
    ]);
  });

  it('given a site that cannot be asked, then the part says why and verify is not complete', async () => {
    const refusal = Object.assign(new Error('refused'), { code: 'FEDERATION.DELEGATION_NOT_FOUND' });
    const [down] = await sitePartsOf([hop], asking, source(new Error('connect ECONNREFUSED')));
    expect(down.unavailable).toEqual({
      code: 'FEDERATION.SITE_UNREACHABLE',
      message: 'connect ECONNREFUSED',
    });
    const [refused] = await sitePartsOf([hop], asking, source(refusal));
    expect(refused.unavailable?.code).toBe('FEDERATION.DELEGATION_NOT_FOUND');
    const local = {
      ok: true,
      streamsChecked: 1,
      eventsChecked: 3,
      unhashedEvents: 0,
      broken: [],
      brokenCount: 0,
      startedMidStream: [],
      startedMidStreamCount: 0,
    };
    expect(verifyStitched(PARENT_WORKLOAD, local, [down])).toMatchObject({ ok: false, complete: false });
    const [good] = await sitePartsOf([hop], asking, source(await childPart()));
    expect(verifyStitched(PARENT_WORKLOAD, local, [good])).toMatchObject({ ok: true, complete: true });
    expect(verifyStitched(PARENT_WORKLOAD, { ...local, ok: false }, [good]).ok).toBe(false);
  });

  it('renders the parent chain with each site part, its head and verdict', async () => {
    const store = new MemoryEventStore();
    const spec = {
      name: 'job',
      namespace: 'default',
      command: 'sh',
      resources: { cpuMillis: 500, memoryBytes: 2 ** 28 },
    };
    const stream = workloadStream(PARENT_WORKLOAD);
    await store.append(
      stream,
      [event('WorkloadSubmitted', { workloadId: PARENT_WORKLOAD, spec })],
      'no_stream',
    );
    const parts = await sitePartsOf([{ ...hop, hopSeq: 0 }], asking, source(await childPart()));
    const text = renderStitchedText(stitchChain(buildChain(await store.readStream(stream)), parts));
    expect(text).toContain(`site child-a, delegation ${DELEGATION} at hop 0: workload ${CHILD_WORKLOAD}`);
    expect(text).toContain('chain intact');
    expect(text).toMatch(new RegExp(`\\n  .*placed .* on node ${NODE}`));
    const broken = await sitePartsOf(
      [hop],
      asking,
      source(tampered(await childPart(), 0, (d) => (d.idempotencyKey = 'x'))),
    );
    const brokenText = renderStitchedText(stitchChain(buildChain(await store.readStream(stream)), broken));
    expect(brokenText).toContain('CHAIN BROKEN');
    expect(brokenText).toContain('broken link at revision 0 (content)');
  });
});
