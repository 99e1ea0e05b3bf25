import { describeWithPostgres, eventually, sleep } from '@hcn/testing';
import { Socket, io } from 'socket.io-client';
import {
  TEST_ADMIN_TOKEN,
  HubHarness,
  processSpec,
  registerNode,
  startHubHarness,
} from '../testing/hub-harness';
import type { ChangeMessage } from './rooms';

const TEAM_A = 'feed-team-a-token-0123456789';
const tokens = [{ name: 'team-a', token: TEAM_A, role: 'viewer', namespaces: ['team-a'] }];

/** A socket.io client that keeps every `change` it receives. */
interface Client {
  socket: Socket;
  changes: ChangeMessage[];
}

describeWithPostgres('change feed (socket.io gateway over the projector NOTIFY, real PostgreSQL)', () => {
  let h: HubHarness;
  const clients: Socket[] = [];

  beforeAll(async () => {
    h = await startHubHarness({ HCN_API_TOKENS: JSON.stringify(tokens), HCN_NODE_TTL_SECONDS: '600' });
  });
  afterAll(async () => {
    clients.forEach((c) => c.close());
    await h?.close();
  });

  function connect(token: string | undefined): Socket {
    const socket = io(h.hub.url, {
      path: '/socket.io',
      transports: ['websocket'],
      auth: token === undefined ? {} : { token },
      reconnection: false,
    });
    clients.push(socket);
    return socket;
  }

  async function client(token: string, rooms: string[]): Promise<Client & { ack: any }> {
    const socket = connect(token);
    const changes: ChangeMessage[] = [];
    socket.on('change', (c: ChangeMessage) => changes.push(c));
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('connect_error', reject);
    });
    const ack = await socket.timeout(5000).emitWithAck('subscribe', rooms);
    return { socket, changes, ack };
  }

  async function refusal(token: string | undefined): Promise<string> {
    const socket = connect(token);
    return new Promise((resolve) =>
      socket.once('connect_error', (e: any) => resolve(e.data?.code ?? e.message)),
    );
  }

  it('refuses connections without a valid API token, with the REST API codes', async () => {
    expect(await refusal(undefined)).toBe('AUTH.TOKEN_REQUIRED');
    expect(await refusal('not-a-token-0123456789')).toBe('AUTH.INVALID_TOKEN');
  });

  it('lets a namespace token join only its own rooms', async () => {
    const a = await client(TEAM_A, [
      'nodes',
      'domains',
      'namespace:team-a',
      'namespace:team-b',
      'namespaces:*',
      'x',
    ]);
    expect(a.ack.joined).toEqual(['nodes', 'domains', 'namespace:team-a']);
    expect(a.ack.refused).toEqual([
      { room: 'namespace:team-b', code: 'AUTH.NAMESPACE_FORBIDDEN' },
      { room: 'namespaces:*', code: 'AUTH.NAMESPACE_FORBIDDEN' },
      { room: 'x', code: 'FEED.UNKNOWN_ROOM' },
    ]);
  });

  it('relays node, domain and workload changes to their rooms, never across namespaces', async () => {
    const admin = await client(TEST_ADMIN_TOKEN, ['nodes', 'domains', 'domain:feed-site', 'namespaces:*']);
    const a = await client(TEAM_A, ['nodes', 'namespace:team-a']);
    const { nodeId } = await registerNode(h, { domainId: 'feed-site', hostname: 'feed-1', cpuCores: 16 });
    await eventually('node change relayed', () => admin.changes.some((c) => c.nodes?.includes(nodeId)));
    await eventually('domain change relayed', () =>
      admin.changes.some((c) => c.room === 'domain:feed-site' && c.domains?.includes('feed-site')),
    );
    await eventually('node change to a namespace token too', () =>
      a.changes.some((c) => c.nodes?.includes(nodeId)),
    );

    const submit = async (namespace: string, name: string): Promise<string> => {
      const r = await h.request('POST', '/v1/workloads', processSpec({ namespace, name }));
      expect(r.status).toBe(201);
      return r.body.workloadId;
    };
    const bId = await submit('team-b', 'secret-b');
    const aId = await submit('team-a', 'visible-a');
    await eventually('both workloads reach the admin', () =>
      [aId, bId].every((id) =>
        admin.changes.some((c) => c.room === 'namespaces:*' && c.workloads?.includes(id)),
      ),
    );
    await eventually('team-a workload reaches team-a', () =>
      a.changes.some((c) => c.room === 'namespace:team-a' && c.workloads?.includes(aId)),
    );
    await sleep(500);
    expect(JSON.stringify(a.changes)).not.toContain(bId);
    expect(a.changes.every((c) => ['nodes', 'namespace:team-a'].includes(c.room))).toBe(true);

    const join = await a.socket
      .timeout(5000)
      .emitWithAck('subscribe', [`workload:${aId}`, `workload:${bId}`]);
    expect(join).toEqual({
      joined: [`workload:${aId}`],
      refused: [{ room: `workload:${bId}`, code: 'WORKLOAD.NOT_FOUND' }],
    });
    const before = a.changes.length;
    expect((await h.request('POST', `/v1/workloads/${aId}/stop`, {})).status).toBeLessThan(300);
    await eventually('the workload room hears the stop', () =>
      a.changes.slice(before).some((c) => c.room === `workload:${aId}` && c.workloads?.includes(aId)),
    );
  });

  it('relays task queue changes to the rooms of their namespace', async () => {
    const admin = await client(TEST_ADMIN_TOKEN, ['namespaces:*']);
    const a = await client(TEAM_A, ['namespace:team-a']);
    const create = async (namespace: string): Promise<string> => {
      const r = await h.request('POST', '/v1/taskqueues', { name: `feed-${namespace}`, namespace });
      expect(r.status).toBe(201);
      return r.body.queueId;
    };
    const bId = await create('team-b');
    const aId = await create('team-a');
    await eventually('both queues reach the admin', () =>
      [aId, bId].every((id) => admin.changes.some((c) => c.taskqueues?.includes(id))),
    );
    await eventually('team-a queue reaches team-a', () =>
      a.changes.some((c) => c.room === 'namespace:team-a' && c.taskqueues?.includes(aId)),
    );
    const before = a.changes.length;
    const added = await h.request('POST', `/v1/taskqueues/${aId}/tasks`, { name: 't', command: 'true' });
    expect(added.status).toBe(201);
    await eventually('a task added is a change of its queue', () =>
      a.changes.slice(before).some((c) => c.taskqueues?.includes(aId)),
    );
    await sleep(500);
    expect(JSON.stringify(a.changes)).not.toContain(bId);
  });
});
