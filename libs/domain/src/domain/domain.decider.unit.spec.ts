import { domainDefinitionSchema } from '@hcn/contracts';
import { specFor } from '../testing';
import { DomainEvent, checkTreePlacement, domainDecider } from './domain.decider';

const given = specFor(domainDecider);
const def = (domainId: string, parentId: string | null = null, extra = {}) =>
  domainDefinitionSchema.parse({ domainId, parentId, ...extra });
const defined = (d = def('site-a', 'region-1')): DomainEvent => ({ type: 'DomainDefined', data: d });

describe('domain decider', () => {
  it('defines once, repeats are no-ops, a different definition needs an update', () => {
    expect(given([]).when({ type: 'DefineDomain', definition: def('site-a', 'region-1') })).toEqual({
      events: [defined()],
    });
    expect(given([defined()]).when({ type: 'DefineDomain', definition: def('site-a', 'region-1') })).toEqual({
      events: [],
    });
    expect(
      given([defined()]).when({ type: 'DefineDomain', definition: def('site-a', 'region-2') }),
    ).toMatchObject({ error: { code: 'DOMAIN.ALREADY_EXISTS' } });
    expect(
      given([defined()]).when({
        type: 'UpdateDomain',
        definition: def('site-a', null, { policy: 'bin-pack' }),
      }),
    ).toEqual({
      events: [{ type: 'DomainUpdated', data: def('site-a', null, { policy: 'bin-pack' }) }],
    });
    expect(given([]).when({ type: 'UpdateDomain', definition: def('x') })).toMatchObject({
      error: { code: 'DOMAIN.NOT_FOUND' },
    });
  });

  it.each([
    ['a root', def('global'), null],
    ['a child of a defined parent', def('site-a', 'region-1'), null],
    ['a missing parent', def('site-a', 'nowhere'), 'DOMAIN.PARENT_NOT_FOUND'],
    ['its own parent', def('region-1', 'region-1'), 'DOMAIN.CYCLE'],
    ['a parent below itself', def('global', 'site-b'), 'DOMAIN.CYCLE'],
  ])('tree placement of %s', (_name, definition, code) => {
    const parents = new Map<string, string | null>([
      ['global', null],
      ['region-1', 'global'],
      ['site-b', 'region-1'],
    ]);
    const run = () => checkTreePlacement(definition, parents);
    if (code) expect(run).toThrow(expect.objectContaining({ code }));
    else expect(run).not.toThrow();
  });
});
