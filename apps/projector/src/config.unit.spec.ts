import { ConfigError } from '@hcn/platform';
import { loadProjectorConfig } from './config';

describe('loadProjectorConfig', () => {
  const base = { DATABASE_URL: 'postgres://hcn:pw@postgres:5432/hcn' };

  it('reads the PostgreSQL event store by default; an empty EVENTSTORE_URL (compose `${VAR:-}`) is unset', () => {
    expect(loadProjectorConfig(base)).toEqual({
      databaseUrl: base.DATABASE_URL,
      eventStoreUrl: undefined,
      kafkaBrokers: undefined,
      scavengeSeconds: 600,
      clusterCheckpointEvents: 500,
      logLevel: 'info',
    });
    expect(
      loadProjectorConfig({ ...base, EVENTSTORE_URL: '', KAFKA_BROKERS: '' }).eventStoreUrl,
    ).toBeUndefined();
    expect(
      loadProjectorConfig({
        ...base,
        EVENTSTORE_URL: 'esdb://eventstore:2113?tls=false',
        KAFKA_BROKERS: 'kafka:9092',
      }),
    ).toMatchObject({ eventStoreUrl: 'esdb://eventstore:2113?tls=false', kafkaBrokers: ['kafka:9092'] });
  });

  it('names every bad setting', () => {
    const bad = {
      DATABASE_URL: 'nope',
      HCN_SCAVENGE_SECONDS: '-1',
      HCN_CLUSTER_CHECKPOINT_EVENTS: '3',
      LOG_LEVEL: 'loud',
    };
    expect(() => loadProjectorConfig(bad)).toThrow(ConfigError);
    try {
      loadProjectorConfig(bad);
    } catch (error) {
      expect((error as Error).message).toMatch(
        /DATABASE_URL[\s\S]*HCN_SCAVENGE_SECONDS[\s\S]*HCN_CLUSTER_CHECKPOINT_EVENTS must be at least 10[\s\S]*LOG_LEVEL: one of/,
      );
    }
  });
});
