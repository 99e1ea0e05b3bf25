import { Registry } from 'prom-client';
import { ConfigError } from './config';
import { hcnVersion, loadMetricsAddress, registerBuildInfo } from './metrics';

describe('loadMetricsAddress (HCN_METRICS_HOST/PORT)', () => {
  it('is off when the port is unset or empty, else on 127.0.0.1 by default', () => {
    expect(loadMetricsAddress('agent', {})).toBeUndefined();
    expect(loadMetricsAddress('agent', { HCN_METRICS_PORT: '' })).toBeUndefined();
    expect(loadMetricsAddress('agent', { HCN_METRICS_PORT: '9464' })).toEqual({
      host: '127.0.0.1',
      port: 9464,
    });
    expect(loadMetricsAddress('agent', { HCN_METRICS_PORT: '9464', HCN_METRICS_HOST: '0.0.0.0' })).toEqual({
      host: '0.0.0.0',
      port: 9464,
    });
  });

  it.each([['abc'], ['-1'], ['65536'], ['1.5']])('refuses HCN_METRICS_PORT=%s with a ConfigError', (port) => {
    expect(() => loadMetricsAddress('projector', { HCN_METRICS_PORT: port })).toThrow(ConfigError);
    expect(() => loadMetricsAddress('projector', { HCN_METRICS_PORT: port })).toThrow(/HCN_METRICS_PORT/);
  });

  it('refuses a host without a port', () => {
    expect(() => loadMetricsAddress('agent', { HCN_METRICS_HOST: '0.0.0.0' })).toThrow(
      /HCN_METRICS_HOST needs/,
    );
  });
});

describe('hcn_build_info', () => {
  it('carries the app, the version, the commit and the Node.js version', async () => {
    const registry = new Registry();
    registerBuildInfo(registry, 'agent', { HCN_VERSION: '1.2.3', HCN_BUILD_COMMIT: 'abc123' });
    expect(await registry.metrics()).toContain(
      `hcn_build_info{app="agent",version="1.2.3",commit="abc123",node="${process.version}"} 1`,
    );
    expect(hcnVersion({})).toMatch(/^\d+\.\d+\.\d+/); // the repository's package.json
  });
});
