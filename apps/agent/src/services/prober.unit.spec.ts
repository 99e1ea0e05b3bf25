import { probeSchema } from '@hcn/contracts';
import { eventually } from '@hcn/testing';
import type { CheckOutcome } from './probe-check';
import { Prober, ProbeVerdict } from './prober';

/** A check that answers from a script of outcomes (the last one repeats), counting its calls. */
function scripted(outcomes: boolean[]) {
  let calls = 0;
  const check = async (): Promise<CheckOutcome> => {
    const ok = outcomes[Math.min(calls, outcomes.length - 1)];
    calls += 1;
    return { ok, detail: ok ? 'fine' : 'HTTP 500' };
  };
  return { check, calls: () => calls };
}

const probe = (extra: Record<string, unknown> = {}) =>
  probeSchema.parse({ tcp: { port: 'http' }, intervalSeconds: 0.1, ...extra });

describe('Prober', () => {
  it('turns passing after successThreshold passes in a row, failing after failureThreshold failures in a row', async () => {
    const turns: Array<[ProbeVerdict, string]> = [];
    const script = scripted([true, false, true, true, false, false, true, false, false, false]);
    const prober = new Prober(
      probe({ successThreshold: 2, failureThreshold: 3 }),
      script.check,
      'failing',
      (verdict, detail) => turns.push([verdict, detail]),
    );
    prober.start();
    await eventually('ten checks', () => script.calls() >= 10, 5000);
    prober.stop();
    expect(turns).toEqual([
      ['passing', 'fine'], // the 3rd and 4th checks: two in a row
      ['failing', '3 check(s) failed in a row, the last: HTTP 500'], // the 8th to 10th
    ]);
    expect(prober.current).toBe('failing');
  });

  it('from an unknown verdict (a re-adopted allocation) tells the first one reached, passing or failing', async () => {
    for (const [outcomes, expected] of [
      [[true], 'passing'],
      [[false], 'failing'],
    ] as const) {
      const turns: ProbeVerdict[] = [];
      const script = scripted([...outcomes]);
      const prober = new Prober(probe({ failureThreshold: 2 }), script.check, 'unknown', (v) =>
        turns.push(v),
      );
      prober.start();
      await eventually('a verdict', () => turns.length > 0, 5000);
      prober.stop();
      expect(turns).toEqual([expected]);
    }
  });

  it('waits the initial delay before the first check and stops checking once stopped', async () => {
    const script = scripted([true]);
    const started = Date.now();
    let firstAt = 0;
    const prober = new Prober(
      probe({ initialDelaySeconds: 0.3 }),
      async () => {
        firstAt ||= Date.now();
        return script.check();
      },
      'failing',
      () => undefined,
    );
    prober.start();
    await eventually('a first check', () => script.calls() > 0, 5000);
    expect(firstAt - started).toBeGreaterThanOrEqual(290);
    prober.stop();
    const calls = script.calls();
    await new Promise((r) => setTimeout(r, 300));
    expect(script.calls()).toBe(calls);
  });

  it('never runs two checks of one probe at once', async () => {
    let running = 0;
    let overlapped = false;
    let calls = 0;
    const prober = new Prober(
      probe({ intervalSeconds: 0.1 }),
      async () => {
        running += 1;
        overlapped ||= running > 1;
        await new Promise((r) => setTimeout(r, 250)); // slower than the interval
        running -= 1;
        calls += 1;
        return { ok: true, detail: 'slow' };
      },
      'failing',
      () => undefined,
    );
    prober.start();
    await eventually('three checks', () => calls >= 3, 5000);
    prober.stop();
    expect(overlapped).toBe(false);
  });
});
