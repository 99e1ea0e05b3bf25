import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { loadAgentConfig } from '../apps/agent/src/config';
import { loadHubConfig } from '../apps/hub/src/config';
import { HUB_NODE_FLAGS } from '../bench/support';

/**
 * docker-compose.yml cannot run here (no container engine); this spec checks what can be checked: the YAML
 * parses (anchors and merges resolved), every app service's environment passes that app's configuration
 * validation, and the topology is the agreed one.
 */
describe('docker-compose.yml', () => {
  const compose = parse(readFileSync(join(__dirname, '..', 'docker-compose.yml'), 'utf8'), {
    merge: true,
  }) as {
    services: Record<string, { image?: string; command?: string[]; environment?: Record<string, string> }>;
  };
  const services = compose.services;

  it('has the backing services and the apps', () => {
    expect(services.eventstore.image).toBe('eventstore/eventstore:24.10');
    expect(services.kafka.image).toBe('apache/kafka:3.9.1');
    expect(services.postgres.image).toBe('postgres:17');
    expect(Object.keys(services).filter((s) => s.startsWith('agent-'))).toHaveLength(3);
  });

  it('gives the hub a valid configuration', () => {
    const config = loadHubConfig(services.hub.environment!);
    expect(config.eventStoreUrl).toBe('esdb://eventstore:2113?tls=false');
    expect(config.kafkaBrokers).toEqual(['kafka:9092']);
  });

  it('runs the hub with the V8 flags the placement benchmark measured', () => {
    expect(services.hub.environment!.NODE_OPTIONS).toBe(HUB_NODE_FLAGS.join(' '));
  });

  it("gives each agent a valid configuration in two domains, with the hub's join token", () => {
    const agents = Object.entries(services).filter(([name]) => name.startsWith('agent-'));
    const configs = agents.map(([, s]) => loadAgentConfig(s.environment!));
    expect(new Set(configs.map((c) => c.domainId))).toEqual(new Set(['east', 'west']));
    expect(configs.every((c) => c.joinToken === services.hub.environment!.HCN_JOIN_TOKEN)).toBe(true);
    expect(configs.every((c) => c.hubUrl === 'http://hub:8080')).toBe(true);
  });

  it('runs each app from the one image with its entry point', () => {
    expect(services.hub.command).toEqual(['dist/apps/hub/src/main.js']);
    expect(services.projector.command).toEqual(['dist/apps/projector/src/main.js']);
    expect(services['agent-west-1'].command).toEqual(['dist/apps/agent/src/main.js']);
  });
});
