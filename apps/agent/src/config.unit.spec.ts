import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAgentConfig } from './config';

describe('agent configuration', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'hcn-agent-config-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads the YAML file and lets the environment override it', () => {
    const file = join(dir, 'agent.yaml');
    writeFileSync(
      file,
      'hubUrl: http://hub:8080\njoinToken: from-file\ndomain: site-a\nlabels:\n  rack: r1\nhead: true\nkafkaBrokers: [kafka:9092]\n',
    );
    const config = loadAgentConfig({
      HCN_AGENT_CONFIG: file,
      HCN_JOIN_TOKEN: 'from-env',
      HCN_LABELS: 'rack=r2,gpu=a100',
    });
    expect(config).toMatchObject({
      hubUrl: 'http://hub:8080',
      joinToken: 'from-env',
      domainId: 'site-a',
      labels: { rack: 'r2', gpu: 'a100' },
      isHead: true,
      kafkaBrokers: ['kafka:9092'],
    });
  });

  it('names every bad setting at start-up', () => {
    const file = join(dir, 'agent.yaml');
    writeFileSync(file, 'domain: Not Valid\nunknownKey: 1\n');
    expect(() => loadAgentConfig({ HCN_AGENT_CONFIG: file })).toThrow(/unknownKey|Unrecognized/);
    let message = '';
    try {
      loadAgentConfig({ HCN_DOMAIN: 'Bad Domain', HCN_HUB_URL: 'not a url' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('hubUrl');
    expect(message).toContain('joinToken');
    expect(message).toContain('domainId');
  });
});
