import { DomainError, defineDecider } from '@hcn/domain';
import { ConcurrencyError, MemoryEventStore } from '@hcn/eventstore';
import { testEventRegistry } from '../../eventstore/src/testing/test-events';
import type { CommandContext } from './command-context';
import { CommandEngine } from './command-engine';
import type { EngineOptions } from './types';

/** A counter that holds at most 10: `Add` appends ThingHappened (a negative n takes away), 0 is a no-op, over 10 refused. */
type Add = { type: 'Add'; n: number };
type Added = { type: 'ThingHappened'; data: { n: number } };
const counter = defineDecider({
  initialState: 0,
  eventTypes: { ThingHappened: true },
  validate: (command: Add, total: number) =>
    total + command.n > 10 ? new DomainError('COUNTER.FULL', `${total} + ${command.n} > 10`) : undefined,
  decideAccepted: (command: Add): Added[] =>
    command.n === 0 ? [] : [{ type: 'ThingHappened', data: { n: command.n } }],
  evolve: (total: number, event: Added) => total + event.data.n,
});
const add = (n: number): Add => ({ type: 'Add', n });
const context: CommandContext = {
  correlationId: 'spec',
  causationId: 'spec',
  actor: { kind: 'system', id: 'spec' },
  now: new Date('2026-01-01T00:00:00Z'),
};
const STREAM = 'counter-1';

/** A memory store that counts reads and appends, and an engine on it with `options`. */
function given(options: EngineOptions<Added> = {}) {
  const store = new MemoryEventStore(testEventRegistry);
  const calls = { reads: 0, appends: 0 };
  const [readStream, append] = [store.readStream.bind(store), store.append.bind(store)];
  store.readStream = (...args) => ((calls.reads += 1), readStream(...args));
  store.append = (...args) => ((calls.appends += 1), append(...args));
  /** Another writer: appends `n` straight to the stream, as another hub would. */
  const elsewhere = async (n: number) => {
    const other = new CommandEngine(store, counter);
    await other.handle(STREAM, add(n), context);
  };
  return { store, calls, elsewhere, engine: new CommandEngine(store, counter, options) };
}

describe('CommandEngine', () => {
  describe('on streams read afresh (no cache)', () => {
    it('loads, decides and appends expecting the revision it read', async () => {
      const { engine, elsewhere } = given();
      await elsewhere(2);
      const handled = await engine.handle(STREAM, add(3), context);
      expect([handled.state, handled.revision, handled.events]).toEqual([
        5,
        1,
        [{ type: 'ThingHappened', data: { n: 3 } }],
      ]);
      expect(handled.appended.map((e) => [e.type, e.metadata.correlationId])).toEqual([
        ['ThingHappened', 'spec'],
      ]);
    });

    it('answers a no-op without appending and a refusal by throwing it', async () => {
      const { engine, calls, elsewhere } = given();
      await elsewhere(9);
      calls.appends = 0;
      expect(await engine.handle(STREAM, add(0), context)).toMatchObject({
        events: [],
        state: 9,
        revision: 0,
      });
      await expect(engine.handle(STREAM, add(2), context)).rejects.toMatchObject({ code: 'COUNTER.FULL' });
      expect(calls.appends).toBe(0);
    });

    it('decides again on the stream as read when another writer got there first', async () => {
      const { engine, store, elsewhere } = given();
      const readStream = store.readStream;
      let raced = false; // another writer appends right after the engine's first read
      store.readStream = async (...args) => {
        const read = await readStream(...args);
        if (!raced && (raced = true)) await elsewhere(4);
        return read;
      };
      const handled = await engine.handle(STREAM, add(5), context);
      expect([handled.state, handled.revision]).toEqual([9, 1]);
    });

    it('gives up after maxAttempts conflicting appends, with the conflict', async () => {
      const { engine, store, calls } = given({ maxAttempts: 3 });
      store.append = async (streamId) => (
        (calls.appends += 1),
        Promise.reject(new ConcurrencyError(streamId, 0, 1))
      );
      await expect(engine.handle(STREAM, add(1), context)).rejects.toBeInstanceOf(ConcurrencyError);
      expect(calls.appends).toBe(3);
    });
  });

  describe('handleOnKnown: on a state the caller holds', () => {
    it('trusts the held state: appends without a read, answers its refusal as is', async () => {
      const { engine, calls } = given();
      const handled = await engine.handleOnKnown(STREAM, { state: 0, revision: -1 }, add(4), context);
      expect([handled.state, handled.revision, calls.reads]).toEqual([4, 0, 0]);
      // held: 9 (stale, the stream has 4): refused on the held state, not re-read
      const refusal = engine.handleOnKnown(STREAM, { state: 9, revision: 0 }, add(3), context);
      await expect(refusal).rejects.toMatchObject({ code: 'COUNTER.FULL' });
      expect(calls.reads).toBe(0);
    });

    it('decides again on the stream when its append conflicts', async () => {
      const { engine, elsewhere } = given();
      await elsewhere(1);
      await elsewhere(1);
      const handled = await engine.handleOnKnown(STREAM, { state: 1, revision: 0 }, add(3), context);
      expect([handled.state, handled.revision]).toEqual([5, 2]);
    });
  });

  describe('with a cache of states', () => {
    it('appends on the state it kept from its own last append, without a read', async () => {
      const { engine, calls } = given({ cachedStreams: 10 });
      await engine.handle(STREAM, add(1), context);
      calls.reads = 0;
      const handled = await engine.handle(STREAM, add(2), context);
      expect([handled.state, handled.revision, calls.reads]).toEqual([3, 1, 0]);
      expect(engine.cached(STREAM)).toEqual({ state: 3, revision: 1 });
    });

    it('re-decides a refusal on the cached state on the stream as read, which may admit it', async () => {
      const { engine, elsewhere } = given({ cachedStreams: 10 });
      await engine.handle(STREAM, add(9), context);
      await elsewhere(-5); // kept: 9; the stream: 4
      const handled = await engine.handle(STREAM, add(5), context);
      expect([handled.state, handled.revision]).toEqual([9, 2]);
    });

    it('re-decides a no-op on the cached state on the stream as read', async () => {
      const { engine, calls, elsewhere } = given({ cachedStreams: 10 });
      await engine.handle(STREAM, add(1), context);
      await elsewhere(2);
      calls.reads = 0;
      expect(await engine.handle(STREAM, add(0), context)).toMatchObject({
        events: [],
        state: 3,
        revision: 1,
      });
      expect(calls.reads).toBe(1);
    });

    it('loads only what was appended since the kept revision', async () => {
      const { engine, store, elsewhere } = given({ cachedStreams: 10 });
      await engine.handle(STREAM, add(1), context);
      await elsewhere(2);
      const read = jest.spyOn(store, 'readStream');
      expect(await engine.load(STREAM)).toEqual({ state: 3, revision: 1 });
      expect(read).toHaveBeenCalledWith(STREAM, { fromRevision: 1 });
    });
  });

  describe('group commit', () => {
    it('decides the commands queued behind an append on one state and appends them at once', async () => {
      const { engine, calls } = given({ cachedStreams: 10, groupCommit: true });
      const verdicts = await Promise.allSettled(
        [1, 2, 3, 8].map((n) => engine.handle(STREAM, add(n), context)),
      );
      expect(verdicts.map((v) => (v.status === 'fulfilled' ? v.value.state : 'refused'))).toEqual([
        1,
        6,
        6,
        'refused',
      ]);
      expect(calls.appends).toBe(2); // [1], then [2, 3] together (8 is refused on the stream as read)
      expect(engine.cached(STREAM)).toEqual({ state: 6, revision: 2 });
    });

    it('rejects the commands of a batch whose append fails', async () => {
      const { engine, store } = given({ groupCommit: true });
      store.append = () => Promise.reject(new Error('disk full'));
      const verdicts = await Promise.allSettled([1, 2].map((n) => engine.handle(STREAM, add(n), context)));
      expect(verdicts.map((v) => v.status === 'rejected' && (v.reason as Error).message)).toEqual([
        'disk full',
        'disk full',
      ]);
    });
  });

  describe('handleMany', () => {
    const streams = (...commands: Array<[string, number[]]>) =>
      commands.map(([streamId, ns]) => ({
        streamId,
        commands: ns.map((n) => ({ command: add(n), context })),
      }));

    it('appends every stream whose cached state takes all its commands in one appendMany', async () => {
      const { engine, store, calls } = given({ cachedStreams: 10 });
      await engine.handle('a', add(1), context);
      await engine.handle('b', add(1), context);
      const appendMany = jest.spyOn(store, 'appendMany');
      calls.reads = 0;
      const outcomes = await engine.handleMany(streams(['a', [1, 2]], ['b', [3]]));
      expect(outcomes).toEqual([
        { known: { state: 4, revision: 2 }, refused: [] },
        { known: { state: 4, revision: 1 }, refused: [] },
      ]);
      expect([appendMany.mock.calls.length, calls.reads]).toEqual([1, 0]);
    });

    it('handles a stream with a refusal, nothing cached or a conflict one command at a time', async () => {
      const { engine, elsewhere } = given({ cachedStreams: 10 });
      await engine.handle(STREAM, add(1), context);
      await elsewhere(1); // the cached state of STREAM is behind: its appendMany part conflicts
      await engine.handle('full', add(9), context);
      const outcomes = await engine.handleMany(streams([STREAM, [1]], ['full', [5, 1]], ['new', [2]]));
      expect(outcomes.map((o) => [o.known, o.refused.map((r) => r.index)])).toEqual([
        [{ state: 3, revision: 2 }, []],
        [{ state: 10, revision: 1 }, [0]],
        [{ state: 2, revision: 0 }, []],
      ]);
    });
  });

  describe('onAppended', () => {
    it('tells each append: the stream, its events as decided, the revision of the first (group commit, handleMany)', async () => {
      const told: Array<[string, number[], number]> = [];
      const { engine, elsewhere } = given({
        cachedStreams: 10,
        groupCommit: true,
        onAppended: (streamId, events, first) => told.push([streamId, events.map((e) => e.data.n), first]),
      });
      await elsewhere(1);
      await Promise.all([1, 2, 3].map((n) => engine.handle(STREAM, add(n), context)));
      await engine.handleMany([{ streamId: 'b', commands: [{ command: add(4), context }] }]);
      expect(told).toEqual([
        [STREAM, [1], 1],
        [STREAM, [2, 3], 2],
        ['b', [4], 0],
      ]);
    });
  });
});
