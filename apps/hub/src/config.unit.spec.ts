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

  it('keeps a Kafka consumer session of 10 s unless configured', () => {
    expect(loadHubConfig(minimal).kafkaSessionTimeoutMs).toBe(10_000);
    expect(loadHubConfig({ ...minimal, HCN_KAFKA_SESSION_TIMEOUT_MS: '6000' }).kafkaSessionTimeoutMs).toBe(
      6000,
    );
  });

  it('scales heartbeats to at most 50/s and gathers reports for 500 ms unless configured (0: fixed interval)', () => {
    expect(loadHubConfig(minimal).heartbeatsMaxPerSecond).toBe(50);
    expect(loadHubConfig(minimal).reportsBatchWindowMs).toBe(500);
    const old = loadHubConfig({
      ...minimal,
      HCN_HEARTBEATS_MAX_PER_SECOND: '0',
      HCN_REPORTS_BATCH_WINDOW_MS: '200',
    });
    expect(old.heartbeatsMaxPerSecond).toBe(0);
    expect(old.reportsBatchWindowMs).toBe(200);
  });

  it('takes an EventStoreDB URL for either gRPC client (esdb://, kurrentdb://) and refuses other schemes', () => {
    for (const url of ['esdb://127.0.0.1:2113?tls=false', 'kurrentdb://127.0.0.1:2113', 'kdb+discover://db'])
      expect(loadHubConfig({ ...minimal, EVENTSTORE_URL: url }).eventStoreUrl).toBe(url);
    expect(() => loadHubConfig({ ...minimal, EVENTSTORE_URL: 'http://127.0.0.1:2113' })).toThrow(
      /EVENTSTORE_URL must be an esdb:\/\/ \(@eventstore\/db-client\) or kurrentdb:\/\//,
    );
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
    ['HCN_KAFKA_SESSION_TIMEOUT_MS', '3000'],
    ['HCN_KAFKA_SESSION_TIMEOUT_MS', '6000.5'],
    ['HCN_MAX_INSTANCES_PER_REQUEST', '0'],
    ['HCN_MAX_INSTANCES_PER_REQUEST', '1.5'],
    ['HCN_DEFAULT_QUOTA', '{cpuMillis: 1}'],
    ['HCN_DEFAULT_QUOTA', '{"cpuMillis": -1}'],
    ['HCN_DEFAULT_QUOTA', '{"cpus": 4}'],
    ['HCN_OPS_HTTP_PORT', '70000'],
    ['HCN_OPS_HTTP_PORT', '8080'],
    ['HCN_OPS_HTTP_HOST', '0.0.0.0'],
    ['HCN_HEARTBEATS_MAX_PER_SECOND', '-1'],
    ['HCN_HEARTBEATS_MAX_PER_SECOND', 'many'],
    ['HCN_REPORTS_BATCH_WINDOW_MS', '5'],
    ['HCN_REPORTS_BATCH_WINDOW_MS', '6000'],
    ['HCN_REPORTS_BATCH_WINDOW_MS', '200.5'],
    ['HCN_NODE_PURGE_AFTER_SECONDS', '-5'],
    ['HCN_NODE_PURGE_AFTER_SECONDS', 'soon'],
  ])('refuses %s=%s at start-up, naming the variable', (name, value) => {
    expect(() => loadHubConfig({ ...minimal, [name]: value })).toThrow(name);
  });

  it('caps 10,000 instances per request, no default quota and no ops listener unless configured', () => {
    const config = loadHubConfig(minimal);
    expect(config.maxInstancesPerRequest).toBe(10_000);
    expect(config.defaultQuota).toBeUndefined();
    expect(config.opsHttp).toBeUndefined();
    expect(config.nodePurgeAfterSeconds).toBe(0);
    expect(
      loadHubConfig({ ...minimal, HCN_DEFAULT_QUOTA: '', HCN_OPS_HTTP_PORT: '' }).opsHttp,
    ).toBeUndefined();
  });

  it('reads the default quota as limits, bare or as the body of PUT /v1/quotas/:namespace', () => {
    const limits = { cpuMillis: 4000, workloads: 20 };
    expect(loadHubConfig({ ...minimal, HCN_DEFAULT_QUOTA: JSON.stringify(limits) }).defaultQuota).toEqual(
      limits,
    );
    const body = JSON.stringify({ limits });
    expect(loadHubConfig({ ...minimal, HCN_DEFAULT_QUOTA: body }).defaultQuota).toEqual(limits);
  });

  it('turns the ops listener on with its port (host 127.0.0.1 unless given)', () => {
    expect(loadHubConfig({ ...minimal, HCN_OPS_HTTP_PORT: '9090' }).opsHttp).toEqual({
      host: '127.0.0.1',
      port: 9090,
    });
    const both = { ...minimal, HCN_OPS_HTTP_HOST: '10.0.0.5', HCN_OPS_HTTP_PORT: '8080' };
    expect(loadHubConfig(both).opsHttp).toEqual({ host: '10.0.0.5', port: 8080 }); // another interface
  });
});
