import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HubClient, HubRequestError } from './hub-client';

describe('HubClient (against a local HTTP server)', () => {
  let server: Server;
  let baseUrl: string;
  const seen: { method?: string; url?: string; auth?: string; type?: string; body: string }[] = [];
  let answer: { status: number; body: string } = { status: 200, body: '{}' };

  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen.push({
          method: req.method,
          url: req.url,
          auth: req.headers.authorization,
          type: req.headers['content-type'],
          body: Buffer.concat(chunks).toString(),
        });
        res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => (seen.length = 0));

  it('posts the registration as JSON and returns the parsed answer', async () => {
    answer = { status: 201, body: JSON.stringify({ nodeId: 'n-1', credential: 'c' }) };
    const request = { hostname: 'h', cpuCores: 2, domainId: 'east' } as never;
    await expect(new HubClient(baseUrl).register(request)).resolves.toEqual({
      nodeId: 'n-1',
      credential: 'c',
    });
    expect(seen).toEqual([
      {
        method: 'POST',
        url: '/v1/agents/register',
        auth: undefined,
        type: 'application/json',
        body: JSON.stringify(request),
      },
    ]);
  });

  it('maps an error answer to HubRequestError with the dotted code', async () => {
    answer = {
      status: 401,
      body: JSON.stringify({ code: 'AUTH.JOIN_TOKEN', detail: 'wrong join token' }),
    };
    const failure = await new HubClient(baseUrl).register({} as never).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(HubRequestError);
    expect(failure).toMatchObject({ status: 401, code: 'AUTH.JOIN_TOKEN', message: 'wrong join token' });
  });

  it('names the HTTP status when the error body is not JSON', async () => {
    answer = { status: 502, body: 'bad gateway' };
    await expect(new HubClient(baseUrl).register({} as never)).rejects.toMatchObject({
      status: 502,
      code: 'HTTP.502',
    });
  });

  it('knowsMe sends the credential and reads NODE.NOT_FOUND as forgotten', async () => {
    answer = { status: 200, body: '{"nodeId":"n-1"}' };
    await expect(new HubClient(baseUrl).knowsMe('secret')).resolves.toBe(true);
    expect(seen[0]).toMatchObject({ method: 'GET', url: '/v1/agents/me', auth: 'Bearer secret', body: '' });
    answer = { status: 404, body: JSON.stringify({ code: 'NODE.NOT_FOUND', detail: 'unknown' }) };
    await expect(new HubClient(baseUrl).knowsMe('secret')).resolves.toBe(false);
  });

  it('whoAmI reads the heartbeat cadence the hub tells, and NODE.NOT_FOUND as forgotten', async () => {
    answer = {
      status: 200,
      body: '{"nodeId":"n-1","status":"online","heartbeatIntervalSeconds":20,"nodeTtlSeconds":60}',
    };
    await expect(new HubClient(baseUrl).whoAmI('secret')).resolves.toMatchObject({
      heartbeatIntervalSeconds: 20,
      nodeTtlSeconds: 60,
    });
    answer = { status: 404, body: JSON.stringify({ code: 'NODE.NOT_FOUND', detail: 'unknown' }) };
    await expect(new HubClient(baseUrl).whoAmI('secret')).resolves.toBeUndefined();
  });

  it('rejects with the network error when the hub is unreachable', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await expect(new HubClient(`http://127.0.0.1:${port}`).knowsMe('x')).rejects.toMatchObject({
      code: 'ECONNREFUSED',
    });
  });
});
