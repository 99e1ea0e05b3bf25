import type { Runtime, ServedFramework } from '@hcn/contracts';
import type { ContainerEngine } from './containers/engine';
import type { ModelFrameworks } from './models/model-frameworks';

/** What a registration says this node offers workloads. */
export interface OfferedCapabilities {
  readonly runtimes: Runtime[];
  readonly modelFrameworks: ServedFramework[];
}

/**
 * What this node offers workloads, as registered with the hub: its runtimes (processes always, containers while the
 * engine answers) and the model frameworks it serves with them. The agent probes it at start and with its identity
 * checks, and registers again when it changed.
 */
export class NodeCapabilities {
  private offered: OfferedCapabilities = { runtimes: ['process'], modelFrameworks: [] };

  constructor(
    private readonly engine: ContainerEngine | undefined,
    private readonly models: ModelFrameworks,
  ) {}

  /** What was offered at the last probe. */
  get current(): OfferedCapabilities {
    return this.offered;
  }

  /** Probes the runtimes again and recomputes the frameworks; true when something changed since the last probe. */
  async probe(): Promise<boolean> {
    const answers = this.engine
      ? await this.engine.ping().then(
          () => true,
          () => false,
        )
      : false;
    const runtimes: Runtime[] = answers ? ['container', 'process'] : ['process'];
    return this.set({ runtimes, modelFrameworks: this.models.served(runtimes) });
  }

  /** Recomputes the frameworks for the runtimes known (one was added); true when they changed. */
  refreshFrameworks(): boolean {
    return this.set({ ...this.offered, modelFrameworks: this.models.served(this.offered.runtimes) });
  }

  /** The start-up line about containers: whether the engine answers. */
  containersLine(socket: string | undefined): string {
    return this.offered.runtimes.includes('container')
      ? `containers: engine at ${socket ?? 'the default socket'} answers`
      : 'containers: no container engine answers; container workloads will be unschedulable on this node';
  }

  /** One line: what the node offers. */
  describe(): string {
    const frameworks = this.offered.modelFrameworks.map((f) => `${f.framework} (${f.runtimes.join(', ')})`);
    return `runtimes ${this.offered.runtimes.join(', ')}; model frameworks ${frameworks.join(', ') || 'none'}`;
  }

  private set(next: OfferedCapabilities): boolean {
    const changed = JSON.stringify(next) !== JSON.stringify(this.offered);
    this.offered = next;
    return changed;
  }
}
