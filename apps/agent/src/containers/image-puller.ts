import type { PullPolicy } from '@hcn/contracts';
import { ContainerEngine, EngineError } from './engine';

const MAX_BACKOFF_MS = 5 * 60 * 1000;

/**
 * Makes an image present by its pull policy, one pull per image at a time; after a failed pull the image is not
 * pulled again until its back-off (doubling per failure) has passed: allocations asking meanwhile fail at once
 * with the last error, so a bad image never causes a pull storm.
 */
export class ImagePuller {
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly failures = new Map<string, { until: number; backoffMs: number; error: EngineError }>();

  constructor(
    private readonly engine: ContainerEngine,
    private readonly firstBackoffMs: number,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Resolves when the image is there; rejects with IMAGE.NOT_FOUND or IMAGE.PULL_FAILED. */
  async ensure(image: string, policy: PullPolicy): Promise<void> {
    if (policy !== 'always' && (await this.engine.hasImage(image))) return;
    if (policy === 'never')
      throw new EngineError(
        'IMAGE.NOT_FOUND',
        `image ${image} is not on this node and its pull policy is never`,
      );
    const failed = this.failures.get(image);
    if (failed && this.clock() < failed.until) throw failed.error;
    const running = this.inFlight.get(image) ?? this.pull(image, failed?.backoffMs);
    this.inFlight.set(image, running);
    return running;
  }

  /** Pulls attempted so far that failed, by image (for specs and metrics). */
  failedPulls(image: string): boolean {
    return this.failures.has(image);
  }

  private async pull(image: string, lastBackoffMs: number | undefined): Promise<void> {
    try {
      await this.engine.pull(image);
      this.failures.delete(image);
    } catch (error) {
      const engineError =
        error instanceof EngineError ? error : new EngineError('IMAGE.PULL_FAILED', String(error));
      const backoffMs = Math.min(MAX_BACKOFF_MS, lastBackoffMs ? lastBackoffMs * 2 : this.firstBackoffMs);
      this.failures.set(image, { until: this.clock() + backoffMs, backoffMs, error: engineError });
      throw engineError;
    } finally {
      this.inFlight.delete(image);
    }
  }
}
