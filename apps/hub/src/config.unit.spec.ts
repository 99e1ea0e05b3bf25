import { loadHubConfig } from './config';

const minimal = {
  DATABASE_URL: 'postgres://hcn:hcn@127.0.0.1:5432/hcn',
  HCN_JOIN_TOKEN: 'join-token-0123456789',
  HCN_AGENT_SECRET: 'agent-secret-0123456789-0123456789-01',
  HCN_ADMIN_TOKEN: 'admin-token-0123456789',
};

describe('hub configuration', () => {
  it('fills the scheduling defaults: claim delay 2 s, tick 200 ms, orphan sweep every minute', () => {
    const config = loadHubConfig(minimal);
    expect(config.claimDelayMs).toBe(2000);
    expect(config.schedulerTickMs).toBe(200);
    expect(config.orphanSweepMs).toBe(60_000);
    expect(config.storePoolSize).toBe(20);
  });

  it('reads the orphan sweep in seconds', () => {
    expect(loadHubConfig({ ...minimal, HCN_ORPHAN_SWEEP_SECONDS: '0.5' }).orphanSweepMs).toBe(500);
  });

  it.each([
    ['HCN_ORPHAN_SWEEP_SECONDS', '0'],
    ['HCN_ORPHAN_SWEEP_SECONDS', 'soon'],
    ['HCN_SCHEDULER_TICK_MS', '-1'],
    ['HCN_NODE_TTL_SECONDS', '1'],
    ['HCN_STORE_POOL_SIZE', '1'],
  ])('refuses %s=%s at start-up, naming the variable', (name, value) => {
    expect(() => loadHubConfig({ ...minimal, [name]: value })).toThrow(name);
  });
});
