import { ValidationError } from '../errors';
import { nulPath, rejectNul } from './nul';

describe('NUL characters in input', () => {
  it.each([
    ['a plain string', 'a\u0000b', '(root)'],
    ['an arg', { args: ['ok', 'x\u0000'] }, 'args.1'],
    ['an env value', { env: { A: 'ok', B: '\u0000' } }, 'env.B'],
    ['a label key', { labels: { 'k\u0000': 'v' } }, 'labels.k\u0000'],
    [
      'deep in a batch',
      { workloads: [{ name: 'a' }, { spec: { env: { X: 'y\u0000' } } }] },
      'workloads.1.spec.env.X',
    ],
  ])('finds one in %s', (_what, value, path) => {
    expect(nulPath(value)).toBe(path);
  });

  it.each([
    ['text', 'hello'],
    ['a backslash-u text', '\\u0000'],
    ['numbers, booleans and null', { a: 1, b: true, c: null, d: [1, 2] }],
  ])('finds none in %s', (_what, value) => {
    expect(nulPath(value)).toBeUndefined();
  });

  it('refuses it with a dotted code on the field', () => {
    let error: unknown;
    try {
      rejectNul({ env: { B: '\u0000' } }, 'WORKLOAD.SPEC', 'Request body');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues).toEqual([
      { path: 'env.B', code: 'WORKLOAD.SPEC.NUL_CHARACTER', message: 'contains a NUL character (\\u0000)' },
    ]);
  });
});
