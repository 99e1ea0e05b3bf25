import { commandMac, commandMacMatches, withMac } from './command-mac';

const KEY = 'node-key-0123456789abcdef';

/** Commands and reports of every shape a MAC covers: nesting, arrays, undefined members, odd keys and numbers. */
const samples: object[] = [
  {
    kind: 'run',
    nodeId: 'n1',
    commandId: 'c1',
    seq: 7,
    issuedAt: '2026-11-26T15:00:00.000Z',
    placement: {
      allocationId: 'a',
      workloadId: 'w',
      spec: {
        name: 'job',
        command: 'true',
        args: ['-c', 'x y'],
        env: { B: '2', A: '1' },
        resources: { cpuMillis: 100, memoryBytes: 67108864, accelerators: 0 },
        labels: {},
        ports: [],
      },
      devices: [],
      generation: 1,
    },
  },
  { kind: 'stop', nodeId: 'n1', allocationId: 'a', reason: undefined, grace: null, mac: 'ignored' },
  {
    type: 'started',
    nodeId: 'n2',
    seq: 12,
    allocationId: 'a',
    pid: 4242,
    startedAt: '2026-11-26T15:00:01.000Z',
    extra: { é: 'ü', 'z-1': [1, 2.5, -0, 1e21, null, true, 'q"uote\\n'] },
  },
  { nested: [[[]], {}, [{ b: 1, a: [undefined, 2] }]], Z: 1, a: 0, _: false, '10': 'ten', '9': 'nine' },
];

/** The MACs the implementation before the one-pass canonical form gave (agents of either version must agree). */
const KNOWN = [
  'dhR-Lu7pMQjxI_88cFt1nNjBvYxuDKyvWCnsXBQG38g',
  'uxUG9oyzTuahxqR5XSH01wWHlBjZlgK5zAHRsQTbYTQ',
  'GAlmmLHVGX8Jm3vLgIXvG92z5T01zUf38IBS_L4Oiuk',
  'y4Cu-MTKZDgN4zv2gIzAcliZJcItL0NVCAsBBoCNrhM',
];

describe('commandMac', () => {
  it('signs the same bytes as before: sorted keys at every level, undefined members left out, mac not signed', () => {
    expect(samples.map((s) => commandMac(KEY, s))).toEqual(KNOWN);
  });

  it('does not depend on key order', () => {
    const [run] = samples as Array<Record<string, unknown>>;
    const reversed = Object.fromEntries(Object.entries(run).reverse());
    expect(commandMac(KEY, reversed)).toBe(KNOWN[0]);
  });

  it('matches a message it signed, and no longer once a field or the key changes', () => {
    const signed = withMac(KEY, samples[2] as { seq: number });
    expect(commandMacMatches(KEY, signed)).toBe(true);
    const changed = { ...signed, seq: 13 };
    expect(commandMacMatches(KEY, changed)).toBe(false);
    expect(commandMacMatches(`${KEY}x`, signed)).toBe(false);
  });
});
