import { quotaStream } from '@hcn/contracts';
import { DomainError, QuotaCommand, QuotaEvent, QuotaState, quotaDecider } from '@hcn/domain';
import { PostgresEventStore } from '@hcn/eventstore';
import { TestDatabase, createTestDatabase, describeWithPostgres } from '@hcn/testing';
import type { CommandContext } from './command-context';
import { CommandEngine } from './command-engine';
import type { Known } from './types';

const context: CommandContext = {
  correlationId: 'spec',
  causationId: 'spec',
  actor: { kind: 'system', id: 'spec' },
  now: new Date(),
};
const amounts = (cpuMillis: number) => ({
  cpuMillis,
  memoryBytes: 0,
  accelerators: 0,
  acceleratorMemoryBytes: 0,
  computeUnits: 0,
});
/** Workload ids by name (the events want UUIDs). */
const W: Record<string, string> = {
  w1: '00000000-0000-4000-8000-000000000001',
  other: '00000000-0000-4000-8000-000000000002',
  w3: '00000000-0000-4000-8000-000000000003',
};
const hold = (namespace: string, workload: string, cpu: number) =>
  ({ type: 'Hold', namespace, workloadId: W[workload], resources: amounts(cpu) }) as const;

describeWithPostgres(
  'CommandEngine: deciding on a kept state, with the stream as the judge (real PostgreSQL)',
  () => {
    let database: TestDatabase;
    let store: PostgresEventStore;
    let reads = 0;
    /** Reads each quota stream afresh. */
    let fresh: CommandEngine<QuotaCommand, QuotaEvent, QuotaState>;

    beforeAll(async () => {
      database = await createTestDatabase('h_cached');
      store = await PostgresEventStore.connect({ connectionString: database.url });
      const readStream = store.readStream.bind(store);
      store.readStream = (...args) => ((reads += 1), readStream(...args)); // counts reads; the store stays real
      fresh = new CommandEngine(store, quotaDecider);
    });
    afterAll(async () => {
      await store.close();
      await database.drop();
    });

    /** An engine that keeps states, holding `kept` for the namespace's quota stream. */
    function keeping(namespace: string, kept?: Known<QuotaState>) {
      const engine = new CommandEngine(store, quotaDecider, { cachedStreams: 10 });
      if (kept) engine.remember(quotaStream(namespace), kept);
      return engine;
    }
    const onKnown = (namespace: string, known: Known<QuotaState>, command: QuotaCommand) =>
      fresh.handleOnKnown(quotaStream(namespace), known, command, context);
    const load = (namespace: string) => fresh.load(quotaStream(namespace));

    /** A namespace limited to 1,000 millicores, and the state kept right after the limit was set. */
    async function limited(namespace: string): Promise<Known<QuotaState>> {
      const set = { type: 'SetLimits', namespace, limits: { cpuMillis: 1000 } } as const;
      const { state, revision } = await onKnown(
        namespace,
        { state: quotaDecider.initialState, revision: -1 },
        set,
      );
      return { state, revision };
    }

    it('appends on a current kept state without reading the stream', async () => {
      const kept = await limited('current');
      reads = 0;
      const handled = await keeping('current', kept).handle(
        quotaStream('current'),
        hold('current', 'w1', 600),
        context,
      );
      expect(reads).toBe(0);
      expect(handled.revision).toBe(1);
      expect(handled.state.total.cpuMillis).toBe(600);
      expect(await load('current')).toEqual({ state: handled.state, revision: 1 });
    });

    it('decides again on the stream when the kept state is behind and its append is refused', async () => {
      const kept = await limited('behind');
      await onKnown('behind', kept, hold('behind', 'other', 300));
      const handled = await keeping('behind', kept).handle(
        quotaStream('behind'),
        hold('behind', 'w1', 600),
        context,
      );
      expect(handled.revision).toBe(2);
      expect(handled.state.total.cpuMillis).toBe(900);
      expect((await load('behind')).state.total.cpuMillis).toBe(900);
    });

    it('does not trust a refusal decided on a kept state: the stream may have room again', async () => {
      const kept = await limited('refused');
      const full = await onKnown('refused', kept, hold('refused', 'other', 900));
      const release = { type: 'Release', namespace: 'refused', workloadId: W.other, reason: 'spec' } as const;
      await onKnown('refused', full, release);
      // On `full` (900 of 1,000 held) the hold is over the limit; the stream, where it was released, admits it.
      const engine = keeping('refused', full);
      const handled = await engine.handle(quotaStream('refused'), hold('refused', 'w1', 600), context);
      expect(handled.events.map((e) => e.type)).toEqual(['QuotaConsumed']);
      expect(handled.state.total.cpuMillis).toBe(600);
    });

    it('refuses what the stream refuses, and reads it when nothing is kept', async () => {
      await limited('over');
      reads = 0;
      const refused = await keeping('over')
        .handle(quotaStream('over'), hold('over', 'w1', 1500), context)
        .catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(DomainError);
      expect((refused as DomainError).code).toBe('QUOTA.EXCEEDED');
      expect(reads).toBe(1);
    });

    describe('handleMany: many streams, one appendMany', () => {
      const many = (streams: Array<[string, Known<QuotaState> | undefined, QuotaCommand[]]>) => {
        const engine = keeping('none');
        for (const [namespace, kept] of streams) if (kept) engine.remember(quotaStream(namespace), kept);
        return engine.handleMany(
          streams.map(([namespace, , commands]) => ({
            streamId: quotaStream(namespace),
            commands: commands.map((command) => ({ command, context })),
          })),
        );
      };

      it('appends on every current kept state in one call, without reading a stream', async () => {
        const [a, b] = [await limited('many-a'), await limited('many-b')];
        reads = 0;
        const outcomes = await many([
          ['many-a', a, [hold('many-a', 'w1', 100), hold('many-a', 'other', 200)]],
          ['many-b', b, [hold('many-b', 'w1', 300)]],
        ]);
        expect(reads).toBe(0);
        expect(outcomes.map((o) => [o.known?.revision, o.known?.state.total.cpuMillis, o.refused])).toEqual([
          [2, 300, []],
          [1, 300, []],
        ]);
        expect(await load('many-a')).toEqual(outcomes[0].known);
        expect(await load('many-b')).toEqual(outcomes[1].known);
      });

      it('decides a stream whose kept state is behind again on the stream, beside one that goes through', async () => {
        const [a, b] = [await limited('many-behind'), await limited('many-ok')];
        await onKnown('many-behind', a, hold('many-behind', 'other', 300));
        const outcomes = await many([
          ['many-behind', a, [hold('many-behind', 'w1', 600)]],
          ['many-ok', b, [hold('many-ok', 'w1', 600)]],
        ]);
        expect(outcomes.map((o) => [o.known?.revision, o.known?.state.total.cpuMillis])).toEqual([
          [2, 900],
          [1, 600],
        ]);
      });

      it('notes a refused command and goes on with the next one of the same stream', async () => {
        const kept = await limited('many-refused');
        const outcomes = await many([
          [
            'many-refused',
            kept,
            [
              hold('many-refused', 'w1', 600),
              hold('many-refused', 'other', 600),
              hold('many-refused', 'w3', 400),
            ],
          ],
        ]);
        expect(outcomes[0].refused.map((r) => [r.index, (r.error as DomainError).code])).toEqual([
          [1, 'QUOTA.EXCEEDED'],
        ]);
        expect(outcomes[0].known?.state.total.cpuMillis).toBe(1000);
        const held = await load('many-refused');
        expect([held.revision, [...held.state.held.keys()].sort()]).toEqual([2, [W.w1, W.w3].sort()]);
      });
    });

    it('group commit: concurrent holds on one quota go in one append, each answered with its verdict', async () => {
      await limited('grouped');
      const engine = new CommandEngine(store, quotaDecider, { cachedStreams: 10, groupCommit: true });
      const appends = jest.spyOn(store, 'append');
      const verdicts = await Promise.allSettled(
        ['w1', 'other', 'w3'].map((w) =>
          engine.handle(quotaStream('grouped'), hold('grouped', w, 400), context),
        ),
      );
      const appended = appends.mock.calls.length;
      appends.mockRestore();
      expect(verdicts.map((v) => v.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
      expect(appended).toBe(2); // the first alone, then the two that queued behind it together
      expect((await load('grouped')).state.total.cpuMillis).toBe(800);
    });
  },
);
