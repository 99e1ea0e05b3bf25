import { changeNotificationSchema, parseRoom, roomAccess, routeChange } from './rooms';

const W1 = '00000000-0000-4000-8000-000000000001';
const W2 = '00000000-0000-4000-8000-000000000002';
const scoped = { name: 'a', role: 'viewer' as const, namespaces: ['team-a'] };
const all = { name: 'admin', role: 'admin' as const, namespaces: ['*'] };

describe('change-feed rooms', () => {
  it('parses room names and refuses anything else', () => {
    expect(parseRoom('nodes')).toEqual({ kind: 'nodes' });
    expect(parseRoom('sites')).toEqual({ kind: 'sites' });
    expect(parseRoom('domain:east')).toEqual({ kind: 'domain', domainId: 'east' });
    expect(parseRoom(`workload:${W1}`)).toEqual({ kind: 'workload', workloadId: W1 });
    for (const bad of ['workload:x', 'domain:Bad Name', 'namespace:a:b', 'nodes:1', 42, '']) {
      expect(parseRoom(bad)).toBeUndefined();
    }
  });

  it('follows the token namespaces', () => {
    expect(roomAccess(scoped, { kind: 'namespace', namespace: 'team-a' })).toBeNull();
    expect(roomAccess(scoped, { kind: 'namespace', namespace: 'team-b' })).toBe('AUTH.NAMESPACE_FORBIDDEN');
    expect(roomAccess(scoped, { kind: 'all-namespaces' })).toBe('AUTH.NAMESPACE_FORBIDDEN');
    expect(roomAccess(all, { kind: 'all-namespaces' })).toBeNull();
    expect(roomAccess(scoped, { kind: 'workload', workloadId: W1 })).toBe('check-workload');
  });

  it('routes workload ids only to the rooms of their namespace', () => {
    const change = changeNotificationSchema.parse({
      projection: 'workloads',
      position: '1/1',
      workloads: [W1, W2],
      namespaces: ['team-a'],
    });
    const messages = routeChange(
      change,
      new Map([
        [W1, 'team-a'],
        [W2, 'team-b'],
      ]),
      [],
    );
    const to = (room: string) => messages.find((m) => m.room === room);
    expect(to('namespace:team-a')).toMatchObject({ workloads: [W1], namespaces: ['team-a'] });
    expect(to('namespace:team-b')).toMatchObject({ workloads: [W2] });
    expect(to('namespace:team-b')?.namespaces).toBeUndefined();
    expect(to('namespaces:*')).toMatchObject({ workloads: [W1, W2] });
    expect(to(`workload:${W1}`)).toMatchObject({ workloads: [W1] });
    expect(to('nodes')).toBeUndefined();
  });

  it('routes federation site ids to the sites room, open to every token', () => {
    const change = changeNotificationSchema.parse({ projection: 'sites', sites: ['child-a', 'peer-b'] });
    expect(routeChange(change, new Map(), [])).toEqual([
      { room: 'sites', position: undefined, sites: ['child-a', 'peer-b'] },
    ]);
    expect(roomAccess(scoped, { kind: 'sites' })).toBeNull();
  });

  it('routes task queue ids to the rooms of their namespace and to namespaces:*', () => {
    const change = changeNotificationSchema.parse({ projection: 'taskqueues', taskqueues: [W1, W2] });
    const messages = routeChange(change, new Map([[W1, 'team-a']]), []);
    expect(messages).toEqual([
      { room: 'namespace:team-a', position: undefined, taskqueues: [W1] },
      { room: 'namespaces:*', position: undefined, taskqueues: [W1, W2] },
    ]);
  });

  it('turns a truncated notification into a refresh of every open room, naming nothing', () => {
    const change = changeNotificationSchema.parse({ projection: 'p', nodes: ['x'], truncated: true });
    expect(routeChange(change, new Map(), ['nodes', 'namespace:team-a'])).toEqual([
      { room: 'nodes', position: undefined, refresh: true },
      { room: 'namespace:team-a', position: undefined, refresh: true },
    ]);
  });
});
