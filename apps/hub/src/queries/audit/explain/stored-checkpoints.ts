import type { ClusterCheckpoints } from '@hcn/audit';
import { ClusterCheckpoint, ClusterFold } from '@hcn/cluster';
import { latestClusterCheckpoint } from '@hcn/read-models';
import type { DataSource } from 'typeorm';

/** The projector's cluster checkpoints (cluster_checkpoint) as a decision replay starts from them. */
export function storedCheckpoints(db: DataSource): ClusterCheckpoints {
  return async (atOrBefore) => {
    const row = await latestClusterCheckpoint(db, atOrBefore);
    if (!row) return undefined;
    const position = { commit: BigInt(row.commit), prepare: BigInt(row.prepare) };
    return { position, fold: ClusterFold.restore(JSON.parse(row.state) as ClusterCheckpoint, position) };
  };
}
