import { randomUUID } from 'node:crypto';
import { changePayload } from './change-payload';
import { emptyChanges } from './projection';

describe('change payload (NOTIFY hcn_read_models)', () => {
  const position = { commit: 12n, prepare: 3n };

  it('names what changed, every kind of id in its own list', () => {
    const changes = emptyChanges();
    changes.nodes.add('n1');
    changes.workloads.add('w1');
    changes.namespaces.add('team-a');
    changes.taskqueues.add('q1');
    changes.sites.add('child-a');
    expect(JSON.parse(changePayload('workloads', position, changes))).toEqual({
      projection: 'workloads',
      position: '12/3',
      domains: [],
      nodes: ['n1'],
      workloads: ['w1'],
      namespaces: ['team-a'],
      taskqueues: ['q1'],
      sites: ['child-a'],
    });
  });

  it('stays valid JSON under the NOTIFY limit, cutting lists and saying so', () => {
    const changes = emptyChanges();
    for (let i = 0; i < 500; i++) {
      changes.nodes.add(randomUUID());
      changes.workloads.add(randomUUID());
      changes.domains.add(`domain-${i}`);
    }
    const payload = changePayload('node-state', position, changes);
    expect(Buffer.byteLength(payload)).toBeLessThan(8000);
    const parsed = JSON.parse(payload);
    expect(parsed.truncated).toBe(true);
    expect(parsed.nodes.length).toBeGreaterThan(0);
    expect(parsed.nodes.length).toBeLessThanOrEqual(100);
  });
});
