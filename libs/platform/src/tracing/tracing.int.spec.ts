import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { ConfigError } from '../config';
import { loadTracingSettings } from './tracing';

const ROOT = resolve(__dirname, '..', '..', '..', '..');

/** Starts tracing in a fresh Node process with `env`; answers which OpenTelemetry modules it then loaded. */
function modulesLoadedWith(env: Record<string, string>): { started: boolean; sdk: boolean } {
  const script = `
    const { startTracing, createLogger } = require('./libs/platform/src');
    const started = startTracing('agent', ${JSON.stringify(env)}) !== undefined;
    createLogger({ app: 'agent', level: 'silent' });
    const loaded = Object.keys(require.cache);
    process.stdout.write(JSON.stringify({
      started,
      sdk: loaded.some((m) => m.includes('@opentelemetry/sdk-trace') || m.includes('@opentelemetry/exporter')),
    }));
    process.exit(0);`;
  const out = execFileSync(process.execPath, ['-r', './scripts/register-ts.js', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return JSON.parse(out) as { started: boolean; sdk: boolean };
}

describe('tracing switch', () => {
  // (@opentelemetry/api itself comes with prom-client, loaded either way)
  it('is off by default and then loads neither the OpenTelemetry SDK nor its exporter', () => {
    expect(modulesLoadedWith({})).toEqual({ started: false, sdk: false });
  }, 60_000);

  it('loads the SDK and the OTLP exporter once an endpoint is set', () => {
    expect(modulesLoadedWith({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' })).toEqual({
      started: true,
      sdk: true,
    });
  }, 60_000);

  it('reads HCN_TRACING, the endpoints and OTEL_SDK_DISABLED; refuses bad values', () => {
    const on = (env: NodeJS.ProcessEnv) => loadTracingSettings('hub', env).enabled;
    expect(on({})).toBe(false);
    expect(on({ OTEL_EXPORTER_OTLP_ENDPOINT: '' })).toBe(false);
    expect(on({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' })).toBe(true);
    expect(on({ HCN_TRACING: 'otlp' })).toBe(true);
    expect(on({ HCN_TRACING: 'off', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).toBe(false);
    expect(on({ OTEL_SDK_DISABLED: 'true', HCN_TRACING: 'otlp' })).toBe(false);
    expect(loadTracingSettings('agent', { HCN_TRACING: 'otlp' }).serviceName).toBe('hcn-agent');
    expect(loadTracingSettings('agent', { OTEL_SERVICE_NAME: 'edge-7' }).serviceName).toBe('edge-7');
    expect(() => loadTracingSettings('hub', { HCN_TRACING: 'jaeger' })).toThrow(ConfigError);
    expect(() => loadTracingSettings('hub', { OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow(
      /OTEL_EXPORTER_OTLP_ENDPOINT: an http\(s\) URL/,
    );
  });
});
