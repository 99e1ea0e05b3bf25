import { HcnError } from '@hcn/contracts';
import { loadFederationConfig } from '../federation.config';
import { servesNamespace } from './child-delegations';
import { DELEGATION_MAX_SKEW_MS, openDelegation, sealDelegation } from './delegation-envelope';

const parent = { parentSiteId: 'parent', credential: 'site.child.secret-0123456789' };
const request = {
  delegationId: '00000000-0000-4000-8000-000000000001',
  parentSiteId: 'parent',
  parentWorkloadId: '00000000-0000-4000-8000-000000000002',
  namespace: 'default',
  spec: { name: 'job', command: 'sh', resources: { cpuMillis: 100, memoryBytes: 2 ** 20 } },
} as never;
const codeOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (error) {
    return (error as HcnError).code;
  }
  return undefined;
};

describe('delegation envelope', () => {
  const now = new Date('2026-01-01T00:00:00Z');

  it('opens what the parent sealed with the shared credential, and nothing else', () => {
    const sealed = sealDelegation(parent.credential, request, now);
    expect(openDelegation(parent, sealed, now)).toMatchObject({
      delegationId: (request as any).delegationId,
    });
    const other = { ...parent, credential: 'site.child.another' };
    expect(codeOf(() => openDelegation(other, sealed, now))).toBe('AUTH.INVALID_DELEGATION_SIGNATURE');
    const late = new Date(now.getTime() + DELEGATION_MAX_SKEW_MS + 1);
    expect(codeOf(() => openDelegation(parent, sealed, late))).toBe('AUTH.DELEGATION_STALE');
    const foreign = { ...parent, parentSiteId: 'someone-else' };
    expect(codeOf(() => openDelegation(foreign, sealed, now))).toBe('AUTH.UNKNOWN_PARENT_SITE');
  });

  it('refuses a request whose spec is of another namespace than the delegation', () => {
    const spec = { ...(request as any).spec, namespace: 'research' };
    const sealed = sealDelegation(parent.credential, { ...(request as object), spec } as never, now);
    expect(codeOf(() => openDelegation(parent, sealed, now))).toBe('FEDERATION.DELEGATION_MALFORMED');
  });
});

describe('HCN_FEDERATION_NAMESPACES', () => {
  const base = { HCN_SITE_ID: 'child', HCN_FEDERATION_JOIN_TOKEN: undefined };

  it('serves the namespaces listed, all with *, none when unset', () => {
    expect(servesNamespace(['a', 'b'], 'b')).toBe(true);
    expect(servesNamespace(['a'], 'b')).toBe(false);
    expect(servesNamespace(['*'], 'b')).toBe(true);
    expect(servesNamespace([], 'b')).toBe(false);
    expect(loadFederationConfig(base).namespaces).toEqual([]);
  });

  it('is validated at start-up: namespace names, and only with a parent', () => {
    expect(() => loadFederationConfig({ ...base, HCN_FEDERATION_NAMESPACES: 'Bad Name' })).toThrow(
      /HCN_FEDERATION_NAMESPACES/,
    );
    expect(() => loadFederationConfig({ ...base, HCN_FEDERATION_NAMESPACES: 'default' })).toThrow(
      /HCN_FEDERATION_PARENT_URL/,
    );
  });
});
