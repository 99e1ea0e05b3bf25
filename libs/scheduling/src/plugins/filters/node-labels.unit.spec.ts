import type { LabelConstraint } from '../../model';
import { compiled, domain, domainIn, indexOf, node, nodeIn, request } from '../../testing/fixtures';
import { LABEL_CONSTRAINT_INVALID, LABEL_MISMATCH, nodeLabelsFilter } from './node-labels';

describe('node-labels filter', () => {
  const labels = { 'gpu.vendor': 'nvidia', zone: 'z1', 'disk.ssd': '' };
  const index = indexOf([domain('s', null)], [node('n1', 's', { labels })]);
  const judge = (constraints: LabelConstraint[]) =>
    nodeLabelsFilter.node(nodeIn(index, 'n1'), compiled(index, request({}, { labels: constraints })));

  it.each<[string, LabelConstraint[], string | undefined, string?]>([
    ['no constraints', [], undefined],
    ['= matches', [{ key: 'gpu.vendor', op: '=', value: 'nvidia' }], undefined],
    [
      '= differs',
      [{ key: 'gpu.vendor', op: '=', value: 'amd' }],
      LABEL_MISMATCH,
      'label gpu.vendor=amd not met: node has gpu.vendor=nvidia',
    ],
    [
      '= on a missing label',
      [{ key: 'rack', op: '=', value: 'r1' }],
      LABEL_MISMATCH,
      'node has no label rack',
    ],
    ['!= differs', [{ key: 'gpu.vendor', op: '!=', value: 'amd' }], undefined],
    ['!= on a missing label holds', [{ key: 'rack', op: '!=', value: 'r1' }], undefined],
    ['!= equal', [{ key: 'zone', op: '!=', value: 'z1' }], LABEL_MISMATCH, 'zone!=z1'],
    ['regex matches whole value', [{ key: 'zone', op: 'regex', value: 'z[0-9]' }], undefined],
    ['regex is anchored', [{ key: 'gpu.vendor', op: 'regex', value: 'nvid' }], LABEL_MISMATCH, '=~/nvid/'],
    ['regex on a missing label', [{ key: 'rack', op: 'regex', value: '.*' }], LABEL_MISMATCH],
    ['in matches', [{ key: 'zone', op: 'in', values: ['z0', 'z1'] }], undefined],
    ['in misses', [{ key: 'zone', op: 'in', values: ['z2'] }], LABEL_MISMATCH, 'zone in (z2)'],
    ['notin misses', [{ key: 'zone', op: 'notin', values: ['z2'] }], undefined],
    ['notin on a missing label holds', [{ key: 'rack', op: 'notin', values: ['r1'] }], undefined],
    ['notin hits', [{ key: 'zone', op: 'notin', values: ['z1'] }], LABEL_MISMATCH],
    ['exists (empty value counts)', [{ key: 'disk.ssd', op: 'exists' }], undefined],
    ['exists missing', [{ key: 'rack', op: 'exists' }], LABEL_MISMATCH, 'rack exists'],
    [
      'the first failing constraint is reported',
      [
        { key: 'zone', op: '=', value: 'z1' },
        { key: 'gpu.vendor', op: 'in', values: ['amd', 'hygon'] },
        { key: 'rack', op: 'exists' },
      ],
      LABEL_MISMATCH,
      'gpu.vendor in (amd,hygon)',
    ],
    ['= without a value', [{ key: 'zone', op: '=' }], LABEL_CONSTRAINT_INVALID, 'needs a value'],
    ['in without values', [{ key: 'zone', op: 'in' }], LABEL_CONSTRAINT_INVALID, 'needs values'],
    ['bad pattern', [{ key: 'zone', op: 'regex', value: '(' }], LABEL_CONSTRAINT_INVALID, 'invalid pattern'],
  ])('%s', (...[_, constraints, expected, detail]) => {
    const rejection = judge(constraints);
    expect(rejection?.reason).toBe(expected);
    if (detail) expect(rejection?.detail).toContain(detail);
  });
});

describe('node-labels filter on subtrees (label counts of usable nodes)', () => {
  const index = indexOf(
    [domain('region', null), domain('site', 'region')],
    [
      node('a', 'site', { labels: { gpu: 'nvidia', zone: 'z1' } }),
      node('b', 'site', { labels: { gpu: 'ascend', zone: 'z1' } }),
      node('c', 'site', { labels: { gpu: 'mlu', zone: 'z2' }, online: false }),
    ],
  );
  it.each<[string, LabelConstraint, string | undefined]>([
    ['= some node has it', { key: 'gpu', op: '=', value: 'ascend' }, undefined],
    ['= only an offline node has it', { key: 'gpu', op: '=', value: 'mlu' }, LABEL_MISMATCH],
    ['!= one usable node differs', { key: 'gpu', op: '!=', value: 'nvidia' }, undefined],
    ['!= every usable node equals', { key: 'zone', op: '!=', value: 'z1' }, LABEL_MISMATCH],
    ['in hits one value', { key: 'gpu', op: 'in', values: ['mlu', 'nvidia'] }, undefined],
    ['in hits none', { key: 'gpu', op: 'in', values: ['mlu', 'dcu'] }, LABEL_MISMATCH],
    [
      'notin covers every usable node',
      { key: 'gpu', op: 'notin', values: ['nvidia', 'ascend'] },
      LABEL_MISMATCH,
    ],
    ['notin leaves one', { key: 'gpu', op: 'notin', values: ['nvidia'] }, undefined],
    ['exists', { key: 'zone', op: 'exists' }, undefined],
    ['exists nowhere', { key: 'rack', op: 'exists' }, LABEL_MISMATCH],
    ['regex matches a value', { key: 'gpu', op: 'regex', value: 'asc.*' }, undefined],
    ['regex matches only an offline node', { key: 'gpu', op: 'regex', value: 'm.*' }, LABEL_MISMATCH],
    ['invalid constraint', { key: 'gpu', op: 'in' }, LABEL_CONSTRAINT_INVALID],
  ])('%s', (...[_, constraint, expected]) => {
    for (const id of ['region', 'site']) {
      const req = compiled(index, request({}, { labels: [constraint] }));
      expect(nodeLabelsFilter.domain(domainIn(index, id), req)?.reason).toBe(expected);
    }
  });
});
