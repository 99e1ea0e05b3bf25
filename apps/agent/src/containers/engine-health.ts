import { ContainerEngine, EngineError } from './engine';

const answers = (engine: ContainerEngine): Promise<boolean> =>
  engine.ping().then(
    () => true,
    () => false,
  );

/**
 * Watches a container engine's availability while containers run. A wait on a container does not fail when the
 * engine's API process dies (the container's monitor keeps the connection open), so pings tell instead.
 */
export class EngineHealth {
  private gone: Promise<EngineError> | undefined;

  constructor(
    private readonly engine: ContainerEngine,
    private readonly retryMs: number,
  ) {}

  /**
   * Resolves when the engine stops answering pings (twice in a row) while `watching()` is true; never resolves once
   * nothing is watched. One watch is shared by every caller.
   */
  stoppedAnswering(watching: () => boolean): Promise<EngineError> {
    this.gone ??= (async () => {
      for (let failures = 0; failures < 2;) {
        await this.pause();
        if (!watching()) {
          this.gone = undefined;
          return new Promise<EngineError>(() => undefined); // nothing to watch: the waits ended
        }
        failures = (await answers(this.engine)) ? 0 : failures + 1;
      }
      this.gone = undefined;
      return new EngineError('ENGINE.UNAVAILABLE', 'the container engine stopped answering');
    })();
    return this.gone;
  }

  /** Resolves once the engine answers a ping again. */
  async answering(): Promise<void> {
    while (!(await answers(this.engine))) await this.pause();
  }

  private pause(): Promise<void> {
    return new Promise((r) => setTimeout(r, this.retryMs).unref());
  }
}
