import { ClusterFold } from '@hcn/cluster';
import type { DataSource } from 'typeorm';
import { storedCheckpoints } from './stored-checkpoints';

const at = { commit: 10n, prepare: 3n };
/** A stand-in for the read models' data source (only `query` is used): answers `rows`, or fails. */
const readModels = (answer: () => Promise<unknown[]>) => ({ query: answer }) as unknown as DataSource;

describe('storedCheckpoints', () => {
  it('restores the latest stored fold at its position', async () => {
    const state = JSON.stringify(new ClusterFold().checkpoint());
    const row = { commit: '7', prepare: '2', seq: 0, cluster_events: '1', nodes: 0, state, written_at: '' };
    const found = await storedCheckpoints(readModels(async () => [row]))(at);
    expect(found?.position).toEqual({ commit: 7n, prepare: 2n });
    expect(found?.fold.snapshot()).toEqual(new ClusterFold().snapshot());
  });

  it('answers none when none is stored, and when the read models fail (the replay folds the whole log)', async () => {
    expect(await storedCheckpoints(readModels(async () => []))(at)).toBeUndefined();
    const heard: string[] = [];
    const failing = storedCheckpoints(
      readModels(() => Promise.reject(new Error('relation "cluster_checkpoint" does not exist'))),
      (error) => heard.push(error.message),
    );
    expect(await failing(at)).toBeUndefined();
    expect(heard).toEqual(['relation "cluster_checkpoint" does not exist']);
  });
});
