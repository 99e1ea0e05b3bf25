import { REPORT_SECTIONS } from '@hcn/audit';
import { labelChanges } from './commands/node';
import { describeLimits, quotaLimits } from './commands/quota';
import { REPORT_KINDS } from './commands/report';
import { counts, progressText } from './commands/taskqueue';
import { FOLLOW_WINDOW, newLines } from './commands/workload-logs';
import { moreThanShown } from './context';
import { CliError, EXIT, describeFailure } from './errors';
import { errorOfAnswer, hubAddress, queryString } from './hub-client';
import { parseDocuments } from './spec-file';
import { formatAge, formatBytes, formatCpu, formatLabels, renderFields, renderTable } from './table';
import { cpuQuantity, keyValue, memoryQuantity, wholeNumber } from './values';

describe('table formatting', () => {
  const columns = [
    { header: 'name', value: (r: { name: string; n: number | null }) => r.name },
    { header: 'count', value: (r: { name: string; n: number | null }) => r.n, align: 'right' as const },
    { header: 'note', value: () => '' },
  ];

  it('pads every column to its widest cell, two spaces apart, numbers right-aligned, no trailing blanks', () => {
    const text = renderTable(columns, [
      { name: 'alpha', n: 5 },
      { name: 'be', n: 1234 },
      { name: 'gamma-long', n: null },
    ]);
    expect(text).toBe(
      [
        'NAME        COUNT  NOTE',
        'alpha           5  -',
        'be           1234  -',
        'gamma-long      -  -',
        '',
      ].join('\n'),
    );
    for (const line of text.split('\n')) expect(line).toBe(line.trimEnd());
  });

  it('keeps a cell on one line and shows objects as JSON', () => {
    const text = renderTable(
      [{ header: 'v', value: (r: { v: unknown }) => r.v }],
      [{ v: 'a\nb' }, { v: { k: 1 } }],
    );
    expect(text).toBe('V\na b\n{"k":1}\n');
  });

  it('aligns describe fields and indents multi-line values under their label', () => {
    expect(
      renderFields([
        ['Name', 'x'],
        ['Endpoints', 'http: a:1\nmetrics: b:2'],
        ['Empty', null],
      ]),
    ).toBe(
      ['Name:       x', 'Endpoints:  http: a:1', '            metrics: b:2', 'Empty:      -', ''].join('\n'),
    );
  });

  it('writes bytes, CPU, ages and labels the way operators read them', () => {
    expect([0, 1023, 1024, 1536, 256 * 2 ** 20, 32 * 2 ** 30, 1.25 * 2 ** 40].map(formatBytes)).toEqual([
      '0',
      '1023',
      '1Ki',
      '1.5Ki',
      '256Mi',
      '32Gi',
      '1.3Ti',
    ]);
    expect(formatBytes(null)).toBe('-');
    expect([0, 250, 1000, 2500, 16000].map(formatCpu)).toEqual(['0', '250m', '1', '2.5', '16']);
    const now = Date.parse('2026-11-01T12:00:00Z');
    expect(
      ['2026-11-01T11:59:15Z', '2026-11-01T11:30:00Z', '2026-11-01T02:00:00Z', '2026-10-20T12:00:00Z'].map(
        (t) => formatAge(t, now),
      ),
    ).toEqual(['45s', '30m', '10h', '12d']);
    expect([formatAge(null, now), formatAge('not a time', now)]).toEqual(['-', '-']);
    expect(formatLabels({ zone: 'z1', a: 'b' })).toBe('a=b,zone=z1');
    expect(formatLabels({})).toBe('-');
  });

  it('shows task counts and progress compactly', () => {
    expect(counts({ running: 3, exited: 0, failed: 1 })).toBe('running=3,failed=1');
    expect(counts(undefined)).toBe('-');
    expect(progressText({ inputLeft: 120, outputDone: 80, ratePerSecond: 2.46, etaSeconds: 48.7 })).toBe(
      '120 left, 80 done, 2.5/s, eta 49s',
    );
    expect(progressText({ unavailable: 'not sampled yet' })).toBe('not sampled yet');
    expect(progressText(null)).toBe('-');
  });
});

describe('values on the command line', () => {
  it('reads byte quantities with Kubernetes suffixes', () => {
    expect(['1073741824', '512Mi', '80Gi', '1.5G', '2k', '1Ti'].map(memoryQuantity)).toEqual([
      2 ** 30,
      512 * 2 ** 20,
      80 * 2 ** 30,
      1.5e9,
      2000,
      2 ** 40,
    ]);
    for (const bad of ['', 'lots', '-1', '5Xi', '1e9', '5 Gi']) expect(() => memoryQuantity(bad)).toThrow();
  });

  it('reads CPU as cores or millicores', () => {
    expect(['2', '0.5', '500m', '16'].map(cpuQuantity)).toEqual([2000, 500, 500, 16000]);
    for (const bad of ['two', '0.0001', '1.5m', '-1']) expect(() => cpuQuantity(bad)).toThrow();
  });

  it('reads whole numbers and key=value pairs', () => {
    expect(wholeNumber('42')).toBe(42);
    expect(() => wholeNumber('4.2')).toThrow('must be a whole number');
    expect(keyValue('a=b=c')).toEqual(['a', 'b=c']);
    expect(keyValue('empty=')).toEqual(['empty', '']);
    expect(() => keyValue('=x')).toThrow();
    expect(() => keyValue('novalue')).toThrow();
  });

  it('tells label sets from removals', () => {
    expect(labelChanges(['a=1', 'b-', 'c=x=y'])).toEqual({ set: { a: '1', c: 'x=y' }, remove: ['b'] });
    expect(() => labelChanges(['plain'])).toThrow(CliError);
  });

  it('merges quota limits: current, then the file, then flags, less the unset ones', () => {
    expect(
      quotaLimits(
        { cpuMillis: 1000, workloads: 5 },
        { memoryBytes: 10, workloads: 7 },
        { cpuMillis: 2000, accelerators: undefined },
        ['memoryBytes'],
      ),
    ).toEqual({ cpuMillis: 2000, workloads: 7 });
    expect(describeLimits({ cpuMillis: 16000, memoryBytes: 64 * 2 ** 30, computeUnits: 2.5 })).toBe(
      'cpu=16, memory=64Gi, compute-units=2.5',
    );
    expect(describeLimits({})).toBe('no limits');
  });

  it('reads YAML (and JSON) documents, each a mapping', () => {
    expect(parseDocuments('a: 1\n---\n---\n{"b": 2}\n', 'f')).toEqual([{ a: 1 }, { b: 2 }]);
    expect(() => parseDocuments('- 1\n- 2\n', 'f')).toThrow('each document must be a mapping');
    expect(() => parseDocuments('a: [1\n', 'f')).toThrow('f is not valid YAML');
    expect(() => parseDocuments('', 'f')).toThrow('f holds no document');
  });

  it('names the same report kinds as the audit library', () => {
    expect(REPORT_KINDS).toEqual(['compliance', ...REPORT_SECTIONS]);
  });
});

describe('hub answers and exit statuses', () => {
  it('builds query strings, repeating arrays and leaving out undefined values', () => {
    expect(queryString({ a: 'x y', b: ['1', '2'], c: undefined, d: 5, e: true })).toBe(
      '?a=x+y&b=1&b=2&d=5&e=true',
    );
    expect(queryString({})).toBe('');
    expect(hubAddress('http://h:8080/')).toBe('http://h:8080');
    expect(hubAddress('https://h/prefix/')).toBe('https://h/prefix');
    expect(() => hubAddress('h:8080')).toThrow('must be an http(s) URL');
  });

  it("reads the code and message of the hub's problem document, or plain text", () => {
    expect(errorOfAnswer(409, JSON.stringify({ title: 'Conflict', detail: 'd', code: 'C.D' }))).toEqual({
      code: 'C.D',
      message: 'd',
    });
    expect(errorOfAnswer(500, JSON.stringify({ title: 'Internal' }))).toEqual({
      code: 'HTTP.500',
      message: 'Internal',
    });
    expect(errorOfAnswer(502, '<html>\n  Bad   gateway </html>')).toEqual({
      code: 'HTTP.502',
      message: '<html> Bad gateway </html>',
    });
    expect(errorOfAnswer(504, '')).toEqual({ code: 'HTTP.504', message: 'HTTP 504' });
  });

  it('maps failures to one line and an exit status', () => {
    expect(describeFailure(new CliError('X.Y', 'why', EXIT.UNREACHABLE))).toEqual({
      line: 'X.Y: why',
      status: 3,
    });
    expect(describeFailure(new CliError('CLI.USAGE', 'bad', EXIT.USAGE))).toEqual({ line: 'bad', status: 2 });
    expect(describeFailure(Object.assign(new Error('gone'), { code: 'AUDIT.WORKLOAD_NOT_FOUND' }))).toEqual({
      line: 'AUDIT.WORKLOAD_NOT_FOUND: gone',
      status: 1,
    });
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    expect(describeFailure(refused).status).toBe(3);
    expect(describeFailure(new Error('boom'))).toEqual({ line: 'boom', status: 1 });
  });
});

describe('paged lists', () => {
  it('says on stderr how to see more when the answer holds more than the table', () => {
    expect(moreThanShown({ total: 250 }, 50)).toBeUndefined();
    expect(moreThanShown({ total: 3, nextCursor: 'abc' }, 2)).toBe(
      '(more after these 2: --cursor abc; 3 in all)',
    );
    expect(moreThanShown({ nextCursor: null, total: 2 }, 2)).toBeUndefined();
    expect(moreThanShown([1, 2], 2)).toBeUndefined();
  });
});

describe('following logs', () => {
  it('prints the lines past the old count while the stream is shorter than the window', () => {
    expect(newLines(['a', 'b'], ['a', 'b', 'c', 'd'], 100)).toEqual(['c', 'd']);
    expect(newLines(['x', 'x'], ['x', 'x', 'x'], 100)).toEqual(['x']);
    expect(newLines([], ['a'], 100)).toEqual(['a']);
    expect(newLines(['a'], ['a'], 100)).toEqual([]);
  });

  it('aligns a full window on its overlap with the previous one', () => {
    expect(newLines(['1', '2', '3', '4'], ['3', '4', '5', '6'], 4)).toEqual(['5', '6']);
    expect(newLines(['1', '2', '3', '4'], ['1', '2', '3', '4'], 4)).toEqual([]);
    expect(newLines(['1', '2', '3', '4'], ['7', '8', '9', '10'], 4)).toEqual(['7', '8', '9', '10']);
    expect(FOLLOW_WINDOW).toBe(10000);
  });
});
