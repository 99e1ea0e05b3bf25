import { GroupCommit } from './group-commit';

/** A commitMany whose calls the spec releases by hand; records the groups it was given. */
function controlled() {
  const groups: number[][] = [];
  const releases: Array<(fail?: boolean) => void> = [];
  const commitMany = (items: number[]) => {
    groups.push(items);
    return new Promise<string[]>((resolve, reject) =>
      releases.push((fail) =>
        fail ? reject(new Error('store down')) : resolve(items.map((i) => `ok-${i}`)),
      ),
    );
  };
  return { groups, releases, commitMany };
}
const tick = () => new Promise((r) => setImmediate(r));

describe('GroupCommit', () => {
  it('commits the first item alone and groups those that arrive while it is in flight', async () => {
    const c = controlled();
    const group = new GroupCommit(c.commitMany, 1);
    const first = group.commit(1);
    const later = [group.commit(2), group.commit(3), group.commit(4)];
    await tick();
    expect(c.groups).toEqual([[1]]);
    c.releases[0]();
    expect(await first).toBe('ok-1');
    await tick();
    expect(c.groups).toEqual([[1], [2, 3, 4]]);
    c.releases[1]();
    expect(await Promise.all(later)).toEqual(['ok-2', 'ok-3', 'ok-4']);
  });

  it('runs at most `inFlight` commits at once', async () => {
    const c = controlled();
    const group = new GroupCommit(c.commitMany, 2);
    const all = [1, 2, 3, 4].map((i) => group.commit(i));
    await tick();
    expect(c.groups).toEqual([[1], [2]]);
    c.releases[0]();
    await tick();
    expect(c.groups).toEqual([[1], [2], [3, 4]]);
    c.releases[1]();
    c.releases[2]();
    expect(await Promise.all(all)).toEqual(['ok-1', 'ok-2', 'ok-3', 'ok-4']);
  });

  it('fails every item of a group whose commit fails, and goes on with the next group', async () => {
    const c = controlled();
    const group = new GroupCommit(c.commitMany, 1);
    const first = group.commit(1);
    const second = group.commit(2);
    await tick();
    c.releases[0](true);
    await expect(first).rejects.toThrow('store down');
    await tick();
    c.releases[1]();
    expect(await second).toBe('ok-2');
  });
});
