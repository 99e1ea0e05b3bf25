import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAgentConfig } from './config';
import { expandDeclaredDevices } from './detectors/declared-devices';

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

  it('reads declared accelerators (a simulated 8-GPU node with two NVLink islands)', () => {
    const file = join(dir, 'agent.yaml');
    writeFileSync(
      file,
      [
        'hubUrl: http://hub:8080',
        'joinToken: t',
        'devices:',
        '  - vendor: nvidia',
        '    model: A100-SXM4-80GB',
        '    memory: 80Gi',
        '    count: 8',
        '    islands: [[0, 1, 2, 3], [4, 5, 6, 7]]',
        '',
      ].join('\n'),
    );
    const config = loadAgentConfig({ HCN_AGENT_CONFIG: file });
    const devices = expandDeclaredDevices(config.devices ?? []);
    expect(devices).toHaveLength(8);
    expect(devices[0]).toMatchObject({ vendor: 'nvidia', memoryBytes: 80 * 2 ** 30 });
    expect(devices[0].interconnect.filter((l) => l.kind === 'nvlink').map((l) => l.peer)).toEqual([1, 2, 3]);
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

  it('waits 1 s on an empty command fetch unless HCN_KAFKA_FETCH_WAIT_MS says otherwise (10 to 3000 ms)', () => {
    const env = { HCN_HUB_URL: 'http://hub:8080', HCN_JOIN_TOKEN: 'join' };
    expect(loadAgentConfig(env).kafkaFetchWaitMs).toBe(1000);
    expect(loadAgentConfig({ ...env, HCN_KAFKA_FETCH_WAIT_MS: '100' }).kafkaFetchWaitMs).toBe(100);
    for (const bad of ['5', '5000', '2.5', 'soon'])
      expect(() => loadAgentConfig({ ...env, HCN_KAFKA_FETCH_WAIT_MS: bad })).toThrow(
        'HCN_KAFKA_FETCH_WAIT_MS',
      );
  });

  it('reads serving commands and images by model framework, the built-in Python and the download limits', () => {
    const file = join(dir, 'agent.yaml');
    writeFileSync(
      file,
      [
        'hubUrl: http://hub:8080',
        'joinToken: t',
        'models:',
        '  onnx:',
        '    image: registry.local/onnx-server:1',
        "    args: ['--model', '{model}', '--port', '{port}']",
        '    healthPath: /v2/health/ready',
        '  torch:',
        '    command: /opt/torchserve/bin/serve',
        'modelDownload:',
        '  maxBytes: 1048576',
      ].join('\n'),
    );
    const config = loadAgentConfig({ HCN_AGENT_CONFIG: file, HCN_SKLEARN_PYTHON: '/opt/py/bin/python' });
    expect(config.models).toEqual({
      onnx: {
        image: 'registry.local/onnx-server:1',
        args: ['--model', '{model}', '--port', '{port}'],
        healthPath: '/v2/health/ready',
        env: {},
      },
      torch: { command: '/opt/torchserve/bin/serve', args: [], env: {} },
    });
    expect(config.sklearnPython).toBe('/opt/py/bin/python');
    expect(config.modelDownload).toEqual({ maxBytes: 1048576, timeoutSeconds: 600 });
    const env = { HCN_HUB_URL: 'http://hub:8080', HCN_JOIN_TOKEN: 'join' };
    expect(loadAgentConfig(env)).toMatchObject({ models: {}, modelDownload: { maxBytes: 4 * 1024 ** 3 } });
    expect(() => loadAgentConfig({ ...env, HCN_MODEL_MAX_BYTES: 'lots' })).toThrow('HCN_MODEL_MAX_BYTES');
    writeFileSync(file, 'models:\n  onnx:\n    healthPath: /health\n');
    expect(() => loadAgentConfig({ ...env, HCN_AGENT_CONFIG: file })).toThrow(/command|image/);
  });
});
