import type { ClusterCheckpoints } from '@hcn/audit';
import { latestClusterCheckpoint, restoredCheckpoint } from '@hcn/read-models';
import type { DataSource } from 'typeorm';

/**
 * The projector's cluster checkpoints (cluster_checkpoint) as a decision replay starts from them. The read models
 * failing does not fail the replay: it folds from the start of the log instead (`onError` hears why).
 */
export function storedCheckpoints(db: DataSource, onError?: (error: Error) => void): ClusterCheckpoints {
  return async (atOrBefore) => {
    const row = await latestClusterCheckpoint(db, atOrBefore).catch((error: Error) => {
      onError?.(error);
      return undefined;
    });
    return row && restoredCheckpoint(row);
  };
}
