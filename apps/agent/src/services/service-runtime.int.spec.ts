import { LIVENESS_FAILED, servicePlacementSchema } from '@hcn/contracts';
import { eventually } from '@hcn/testing';
import { Server, createServer } from 'node:http';
import { containerPortEnvironment, portEnvironment } from './service-ports';
import { ServiceRuntime } from './service-runtime';

const A1 = '00000000-0000-4000-8000-0000000000a1';
const A2 = '00000000-0000-4000-8000-0000000000a2';

/** The service runtime against a real HTTP server on the port it picked. */
describe('ServiceRuntime (real ports and a real HTTP server on loopback)', () => {
  const readiness: Array<[string, boolean, string]> = [];
  const stops: Array<[string, string]> = [];
  const runtime = new ServiceRuntime({
    readiness: (id, ready, detail) => readiness.push([id, ready, detail]),
    stop: (id, reason) => stops.push([id, reason]),
    exec: async () => 0,
  });
  let server: Server | undefined;
  let healthy = true;
  afterAll(async () => {
    runtime.stopAll();
    server?.closeAllConnections();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  });

  const service = servicePlacementSchema.parse({
    ports: [
      { name: 'http', hostPort: 0, protocol: 'tcp' },
      { name: 'admin-ui', hostPort: 0, protocol: 'tcp' },
    ],
    readinessProbe: { http: { path: '/ready', port: 'http' }, intervalSeconds: 0.1, failureThreshold: 2 },
    livenessProbe: {
      tcp: { port: 'admin-ui' },
      intervalSeconds: 0.1,
      failureThreshold: 2,
      initialDelaySeconds: 0.5,
    },
  });

  it('picks distinct free host ports per named port and tells them in the environment', async () => {
    const first = await runtime.reservePorts(A1, service);
    const second = await runtime.reservePorts(A2, service);
    const ports = [...first, ...second].map((p) => p.hostPort);
    expect(new Set(ports).size).toBe(4);
    expect(first.map((p) => p.name)).toEqual(['http', 'admin-ui']);
    expect(first[0]).toMatchObject({ containerPort: first[0].hostPort, protocol: 'tcp' });
    expect(portEnvironment([{ name: 'http', port: 8080 }])).toEqual({ HCN_PORT_HTTP: '8080', PORT: '8080' });
    expect(portEnvironment(first.map((p) => ({ name: p.name ?? '', port: p.hostPort })))).toEqual({
      HCN_PORT_HTTP: String(first[0].hostPort),
      HCN_PORT_ADMIN_UI: String(first[1].hostPort),
    });
    const box = servicePlacementSchema.parse({
      ports: [{ name: 'http', containerPort: 80, hostPort: 0, protocol: 'tcp' }],
    });
    expect(containerPortEnvironment(box)).toEqual({ HCN_PORT_HTTP: '80', PORT: '80' });
    runtime.ended(A2);
  });

  it('reports readiness once its probe passes and when it fails, and stops the allocation when liveness fails', async () => {
    const ports = await runtime.reservePorts(A1, service);
    const http = ports[0].hostPort;
    const admin = ports[1].hostPort;
    const published = runtime.started(A1, { service, runtime: 'process', ports });
    expect(published).toEqual(ports);
    // nothing listens yet: not ready (nothing reported: an allocation starts not ready), liveness not checked yet
    await new Promise((r) => setTimeout(r, 300));
    expect(readiness).toEqual([]);
    server = createServer((_, res) => res.writeHead(healthy ? 200 : 500).end());
    await new Promise<void>((resolve) => server?.listen(http, '0.0.0.0', resolve));
    const adminServer = createServer((_, res) => res.end());
    await new Promise<void>((resolve) => adminServer.listen(admin, '0.0.0.0', resolve));
    await eventually('ready', () => readiness.length === 1, 5000);
    expect(readiness[0]).toEqual([A1, true, 'HTTP 200']);
    healthy = false;
    await eventually('not ready', () => readiness.length === 2, 5000);
    expect(readiness[1]).toEqual([A1, false, '2 check(s) failed in a row, the last: HTTP 500']);
    expect(stops).toEqual([]); // liveness passes: the admin port answers
    await new Promise((resolve) => adminServer.close(resolve));
    await eventually('stopped by liveness', () => stops.length === 1, 5000);
    expect(stops[0][0]).toBe(A1);
    expect(stops[0][1]).toMatch(
      new RegExp(
        `^${LIVENESS_FAILED.replace('.', '\\.')}: 2 check\\(s\\) failed in a row, the last: connection refused$`,
      ),
    );
    expect(runtime.watching).toEqual([]); // no more checks once it is being stopped
    expect(runtime.ended(A1)).toBe(stops[0][1]);
    expect(runtime.ended(A1)).toBeUndefined();
  });
});
