import { loadFederationConfig } from '../federation.config';
import { DelegationWatermark } from './delegation-watermark';

const SECRET = 'p'.repeat(32);
const base = { HCN_SITE_ID: 'parent', HCN_FEDERATION_PEERS: 'peer-p=http://127.0.0.1:9' };
const position = (n: number) => ({ commit: BigInt(n), prepare: BigInt(n) });

describe('federation settings of the delegating side', () => {
  it('defaults to CNET order, a 10 s delegation timeout and no peer secrets', () => {
    const config = loadFederationConfig(base);
    expect(config.order).toEqual(['local', 'children', 'peers']);
    expect(config.delegationTimeoutSeconds).toBe(10);
    expect(config.peerSecrets).toEqual({});
  });

  it('takes an order, a timeout and per-peer secrets', () => {
    const config = loadFederationConfig({
      ...base,
      HCN_FEDERATION_ORDER: 'children, local',
      HCN_FEDERATION_DELEGATION_TIMEOUT_SECONDS: '2.5',
      HCN_FEDERATION_PEER_SECRETS: `peer-p=${SECRET}`,
    });
    expect(config.order).toEqual(['children', 'local']);
    expect(config.delegationTimeoutSeconds).toBe(2.5);
    expect(config.peerSecrets).toEqual({ 'peer-p': SECRET });
  });

  it('refuses a bad order, timeout or peer secret at start-up, naming the setting', () => {
    const bad = (env: Record<string, string>, setting: RegExp) =>
      expect(() => loadFederationConfig({ ...base, ...env })).toThrow(setting);
    bad({ HCN_FEDERATION_ORDER: 'local,local' }, /HCN_FEDERATION_ORDER/);
    bad({ HCN_FEDERATION_ORDER: 'local,cousins' }, /HCN_FEDERATION_ORDER/);
    bad({ HCN_FEDERATION_DELEGATION_TIMEOUT_SECONDS: '0' }, /HCN_FEDERATION_DELEGATION_TIMEOUT_SECONDS/);
    bad({ HCN_FEDERATION_PEER_SECRETS: 'peer-p=short' }, /HCN_FEDERATION_PEER_SECRETS/);
    bad({ HCN_FEDERATION_PEER_SECRETS: `stranger=${SECRET}` }, /HCN_FEDERATION_PEER_SECRETS/);
  });

  it('lets a peer delegate here: HCN_FEDERATION_NAMESPACES with peer secrets and no parent', () => {
    const env = {
      ...base,
      HCN_FEDERATION_PEER_SECRETS: `peer-p=${SECRET}`,
      HCN_FEDERATION_NAMESPACES: 'default',
    };
    expect(loadFederationConfig(env).namespaces).toEqual(['default']);
  });
});

describe('delegation sender watermark', () => {
  it('moves past a delegation only once every earlier one is answered', () => {
    const w = new DelegationWatermark();
    const a = w.begin(position(1));
    const b = w.begin(position(2));
    w.passed(position(3));
    expect(w.safe()).toBeUndefined();
    w.settle(b);
    expect(w.safe()).toBeUndefined();
    w.settle(a);
    expect(w.safe()).toEqual(position(2));
    w.passed(position(3));
    expect(w.safe()).toEqual(position(3));
  });
});
