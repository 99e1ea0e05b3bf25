import type { Projection } from '../projection';
import { nodeStateProjection } from './node-state.projection';

/** Every projection the projector runs. */
export const PROJECTIONS: readonly Projection[] = [nodeStateProjection];
