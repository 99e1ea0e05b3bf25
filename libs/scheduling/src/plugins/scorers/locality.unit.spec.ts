import { compiled, domain, domainIn, indexOf, node, request, res } from '../../testing/fixtures';
import { localityScorer, treeDistance } from './locality';

describe('locality scorer', () => {
  const index = indexOf(
    [
      domain('global', null),
      domain('eu', 'global', { region: 'eu' }),
      domain('eu-a', 'eu'),
      domain('eu-b', 'eu'),
      domain('us', 'global', { region: 'us' }),
      domain('us-a', 'us'),
      domain('other-root', null),
    ],
    [
      node('eu-a-n1', 'eu-a'),
      node('eu-b-n1', 'eu-b', { allocated: res(4, 16) }),
      node('us-a-n1', 'us-a'),
      node('o-n1', 'other-root'),
    ],
  );
  const rank = (ids: string[], preferDomains: string[], preferRegions: string[]) => {
    const out = new Float64Array(32);
    const req = compiled(index, request({}, { preferDomains, preferRegions }));
    const candidates = ids.map((id) => domainIn(index, id));
    localityScorer.score(candidates, { request: req, scope: null }, out);
    out.forEach((s) => expect(s >= 0 && s <= 100).toBe(true));
    return ids
      .map((id, i) => [id, out[i]] as const)
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .map(([id]) => id);
  };

  it.each<[string, string, string, number]>([
    ['same domain', 'eu-a', 'eu-a', 0],
    ['ancestor', 'eu', 'eu-a', 0],
    ['siblings', 'eu-a', 'eu-b', 2],
    ['cousins', 'eu-a', 'us-a', 4],
    ['different roots', 'eu-a', 'other-root', 4],
  ])('tree distance: %s', (...[_, a, b, expected]) => {
    expect(treeDistance(domainIn(index, a), domainIn(index, b))).toBe(expected);
  });

  it.each<[string, string[], string[], string[], string[]]>([
    ['a region containing the preferred site first', ['eu', 'us'], ['us-a'], [], ['us', 'eu']],
    [
      'sites by closeness to the preferred site',
      ['us-a', 'eu-b', 'eu-a'],
      ['eu-a'],
      [],
      ['eu-a', 'eu-b', 'us-a'],
    ],
    ['a preferred region', ['eu', 'us'], [], ['us'], ['us', 'eu']],
    ['region inside a subtree counts', ['global', 'other-root'], [], ['eu'], ['global', 'other-root']],
    ['domain closeness outranks region', ['eu-a', 'us-a'], ['eu-a'], ['us'], ['eu-a', 'us-a']],
    ['without preferences: least-loaded', ['eu-b', 'eu-a'], [], [], ['eu-a', 'eu-b']],
    ['equal closeness: least-loaded decides', ['eu-b', 'eu-a'], ['eu'], [], ['eu-a', 'eu-b']],
  ])('%s', (...[_, ids, preferDomains, preferRegions, expected]) => {
    expect(rank(ids, preferDomains, preferRegions)).toEqual(expected);
  });
});
