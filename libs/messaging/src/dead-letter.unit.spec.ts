import { handleWithDeadLetters } from './dead-letter';
import type { IncomingMessage } from './port';

const message = (value: string): IncomingMessage =>
  ({
    topic: 't',
    partition: 0,
    offset: '0',
    key: 'k',
    value: Buffer.from(value),
    headers: {},
  }) as unknown as IncomingMessage;

describe('handleWithDeadLetters keeps the member alive', () => {
  it('given a handler that hangs for a while, when it runs, then keepAlive is called meanwhile and stops after', async () => {
    let beats = 0;
    await handleWithDeadLetters(
      {
        groupId: 'g',
        topics: ['t'],
        handleBatch: () => new Promise((resolve) => setTimeout(resolve, 220)),
      },
      [message('a')],
      async () => undefined,
      { keepAlive: async () => void beats++, keepAliveEveryMs: 20 },
    );
    const during = beats;
    await new Promise((r) => setTimeout(r, 100));
    expect(during).toBeGreaterThanOrEqual(5);
    expect(beats).toBe(during);
  });

  it('given no keepAlive hook, when the handler runs, then it just runs', async () => {
    const handled: string[] = [];
    await handleWithDeadLetters(
      {
        groupId: 'g',
        topics: ['t'],
        handleBatch: async (m) => void handled.push(...m.map((x) => x.value.toString())),
      },
      [message('a')],
      async () => undefined,
    );
    expect(handled).toEqual(['a']);
  });
});
