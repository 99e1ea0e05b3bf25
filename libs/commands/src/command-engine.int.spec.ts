import { quotaStream } from '@hcn/contracts';
import { DomainError, QuotaState, quotaDecider } from '@hcn/domain';
import { PostgresEventStore } from '@hcn/eventstore';
import { TestDatabase, createTestDatabase, describeWithPostgres } from '@hcn/testing';
import { Known, handleManyOnCached, handleOnCached, handleOnKnown, loadKnown } from './aggregate';
import type { CommandContext } from './command-context';

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
  'handleOnCached: deciding on a kept state, with the stream as the judge (real PostgreSQL)',
  () => {
    let database: TestDatabase;
    let store: PostgresEventStore;
    let reads = 0;

    beforeAll(async () => {
      database = await createTestDatabase('h_cached');
      store = await PostgresEventStore.connect({ connectionString: database.url });
      const readStream = store.readStream.bind(store);
      store.readStream = (...args) => ((reads += 1), readStream(...args)); // counts reads; the store stays real
    });
    afterAll(async () => {
      await store.close();
      await database.drop();
    });

    type QuotaCommand = Parameters<typeof quotaDecider.decide>[0];
    /** handleOnCached / handleOnKnown on a namespace's quota stream. */
    const onCached = (namespace: string, kept: Known<QuotaState> | undefined, command: QuotaCommand) =>
      handleOnCached(store, quotaDecider, quotaStream(namespace), kept, command, context);
    const onKnown = (namespace: string, known: Known<QuotaState>, command: QuotaCommand) =>
      handleOnKnown(store, quotaDecider, quotaStream(namespace), known, command, context);

    /** A namespace limited to 1,000 millicores, and the state kept right after the limit was set. */
    async function limited(namespace: string): Promise<Known<QuotaState>> {
      const set = { type: 'SetLimits', namespace, limits: { cpuMillis: 1000 } } as const;
      const start = { state: quotaDecider.initialState, revision: -1 };
      return onKnown(namespace, start, set);
    }

    it('appends on a current kept state without reading the stream', async () => {
      const kept = await limited('current');
      reads = 0;
      const handled = await onCached('current', kept, hold('current', 'w1', 600));
      expect(reads).toBe(0);
      expect(handled.revision).toBe(1);
      expect(handled.state.total.cpuMillis).toBe(600);
      expect(await loadKnown(store, quotaDecider, quotaStream('current'))).toEqual({
        state: handled.state,
        revision: 1,
      });
    });

    it('decides again on the stream when the kept state is behind and its append is refused', async () => {
      const kept = await limited('behind');
      await onKnown('behind', kept, hold('behind', 'other', 300));
      const handled = await onCached('behind', kept, hold('behind', 'w1', 600));
      expect(handled.revision).toBe(2);
      expect(handled.state.total.cpuMillis).toBe(900);
      expect((await loadKnown(store, quotaDecider, quotaStream('behind'))).state.total.cpuMillis).toBe(900);
    });

    it('does not trust a refusal decided on a kept state: the stream may have room again', async () => {
      const kept = await limited('refused');
      const full = await onKnown('refused', kept, hold('refused', 'other', 900));
      const release = { type: 'Release', namespace: 'refused', workloadId: W.other, reason: 'spec' } as const;
      await onKnown('refused', full, release);
      // On `full` (900 of 1,000 held) the hold is over the limit; the stream, where it was released, admits it.
      const handled = await onCached('refused', full, hold('refused', 'w1', 600));
      expect(handled.events.map((e) => e.type)).toEqual(['QuotaConsumed']);
      expect(handled.state.total.cpuMillis).toBe(600);
    });

    it('refuses what the stream refuses, and reads it when nothing is kept', async () => {
      await limited('over');
      reads = 0;
      const refused = await onCached('over', undefined, hold('over', 'w1', 1500)).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(DomainError);
      expect((refused as DomainError).code).toBe('QUOTA.EXCEEDED');
      expect(reads).toBe(1);
    });
    describe('handleManyOnCached: many streams, one appendMany', () => {
      const many = (streams: Array<[string, Known<QuotaState> | undefined, QuotaCommand[]]>) =>
        handleManyOnCached(
          store,
          quotaDecider,
          streams.map(([namespace, cached, commands]) => ({
            streamId: quotaStream(namespace),
            cached,
            commands: commands.map((command) => ({ command, context })),
          })),
        );

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
        for (const [namespace, o] of [
          ['many-a', outcomes[0]],
          ['many-b', outcomes[1]],
        ] as const)
          expect(await loadKnown(store, quotaDecider, quotaStream(namespace))).toEqual(o.known);
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
        const held = await loadKnown(store, quotaDecider, quotaStream('many-refused'));
        expect([held.revision, [...held.state.held.keys()].sort()]).toEqual([2, [W.w1, W.w3].sort()]);
      });
    });
  },
);
