import {
  AcceleratorDevice,
  DeviceUsage,
  AgentCommand,
  AgentReport,
  RegisterNodeResponse,
  agentCommandSchema,
  withMac,
} from '@hcn/contracts';
import { Consumer, MessageBus, PoisonMessageError } from '@hcn/messaging';
import { commandTopicFor, engineSocket, startSpan } from '@hcn/platform';
import { join } from 'node:path';
import { AppliedCommands } from './applied-commands';
import type { AgentConfig } from './config';
import { detectAccelerators, sampleDeviceUsage } from './detectors/accelerators';
import { UsageSampler, detectHost } from './detectors/host.detector';
import { HubClient } from './hub-client';
import { commandRefusal } from './command-check';
import { containerOptions } from './containers/container-options';
import { NodeIdentity } from './identity';
import { withOpenedSecrets } from './open-secrets';
import { Outbox } from './outbox/outbox';
import { ReportBody, WorkloadRunner } from './workload-runner';
import { chmodSync } from 'node:fs';
import { detectCgroupMode } from './isolation/cgroups';
import { ProcessSandbox } from './isolation/process-sandbox';
import { resolveWorkloadUser } from './isolation/workload-user';
import { DockerEngine } from './containers/docker-engine';
import type { ContainerEngine } from './containers/engine';
import { NodeCapabilities } from './capabilities';
import { ModelFrameworks } from './models/model-frameworks';

/** Version the agent reports at registration. */
export const AGENT_VERSION = '0.1.0';

/** Bytes of reports per publish: under Kafka's default 1 MB message limit, whatever the reports' sizes. */
const FLUSH_BYTES = 900 * 1024;

/** Tunables of an agent (the hub's registration reply sets the heartbeat interval). */
export interface AgentOptions {
  /** How often to ask the hub whether it still knows this node, in heartbeats; default 3. */
  readonly identityCheckEvery?: number;
  readonly log?: (line: string) => void;
  /** Called when the hub asked this agent to stop and it has stopped. */
  readonly onRemoteStop?: (reason: string) => void;
}

/**
 * The node agent: detects the machine, registers with a join token (keeping its node id on disk), sends
 * heartbeats through a durable outbox, re-registers when the hub forgot it, and applies commands once.
 */
export class Agent {
  private readonly identity: NodeIdentity;
  private readonly outbox: Outbox<AgentReport>;
  private readonly sampler: UsageSampler;
  private readonly applied: AppliedCommands;
  private readonly hub: HubClient;
  private readonly runner: WorkloadRunner;
  private logTimer: NodeJS.Timeout | undefined;
  private session: RegisterNodeResponse | undefined;
  private timer: NodeJS.Timeout | undefined;
  private commands: Consumer | undefined;
  private ticks = 0;
  private refused = 0;
  private flushing: Promise<void> = Promise.resolve();
  private stopped = false;
  draining = false;
  /** The devices registered with the hub (detected or declared). */
  private devices: AcceleratorDevice[] = [];
  private readonly sandbox: ProcessSandbox;
  /** The model frameworks this node serves (the operator's, the built-in sklearn server). */
  private readonly models: ModelFrameworks;
  /** The runtimes and model frameworks registered with the hub. */
  private readonly capabilities: NodeCapabilities;

  constructor(
    private readonly config: AgentConfig,
    private readonly bus: MessageBus,
    private readonly options: AgentOptions = {},
  ) {
    this.identity = new NodeIdentity(config.dataDir);
    chmodSync(config.dataDir, 0o700); // the outbox, identity and allocation state: the agent's alone
    this.outbox = new Outbox(join(config.dataDir, 'outbox'), {
      droppable: (body) => (body as { kind?: string }).kind === 'heartbeat', // never allocation reports
      onDrop: (n, kept) =>
        this.log(`outbox full: dropped the ${n} oldest heartbeats, ${kept} bytes of reports kept`),
    });
    this.sampler = new UsageSampler(config.dataDir);
    this.applied = new AppliedCommands(config.dataDir);
    this.hub = new HubClient(config.hubUrl);
    const workloadUser = resolveWorkloadUser(config.processUser);
    this.models = new ModelFrameworks(config.models, workloadUser, (line) => this.log(line));
    this.sandbox = new ProcessSandbox(
      workloadUser,
      detectCgroupMode(),
      '/hcn-agent',
      config.containers.pidsLimit,
    );
    const socket = engineSocket(config.containers.socket);
    // the local container engine, when a socket is configured or found
    const engine: ContainerEngine | undefined = socket ? new DockerEngine(socket) : undefined;
    this.capabilities = new NodeCapabilities(engine, this.models);
    this.runner = new WorkloadRunner(
      config.dataDir,
      () => this.nodeId ?? '',
      (body) => this.enqueue(body),
      {
        devices: () => this.devices,
        vramGuardPath: config.vramGuardPath,
        sandbox: this.sandbox,
        ...(engine ? { containers: containerOptions(engine, config.containers) } : {}),
        models: this.models.launcherOptions(config, workloadUser),
      },
    );
  }

  /** The node id once registered. */
  get nodeId(): string | undefined {
    return this.session?.nodeId ?? this.identity.read();
  }

  /** Reports waiting in the outbox. */
  get pendingReports(): number {
    return this.outbox.size;
  }

  /** Registers (retrying until the hub answers), starts heartbeats and command consumption. */
  async start(): Promise<void> {
    this.log(this.sandbox.describe());
    await this.models.discover(this.config.sklearnPython);
    await this.capabilities.probe();
    this.log(this.capabilities.containersLine(this.config.containers.socket));
    // Subscribed before registering: no command for this node can be published before its consumer is in place.
    let ready = (): void => undefined;
    const registered = new Promise<void>((resolve) => (ready = resolve));
    await this.consumeCommands(this.identity.ensureNodeId(this.config.joinToken), registered);
    await this.registerWithRetry();
    await this.runner.recover();
    ready();
    this.schedule();
    this.logTimer = setInterval(() => {
      this.runner.shipLogs();
      if (this.outbox.size > 0) void this.flush();
    }, 1000);
    this.logTimer.unref();
  }

  /** Serves `sklearn` with the built-in server on `python` from now on (installed after the start) and re-registers. */
  async offerSklearn(python: string): Promise<boolean> {
    if (!(await this.models.offerSklearn(python))) return false;
    if (this.capabilities.refreshFrameworks() && this.session && !this.stopped) await this.register();
    return true;
  }

  /** Commands refused so far: for another node, unsigned, badly signed or replayed. */
  get refusedCommands(): number {
    return this.refused;
  }

  /** Allocations running on this node now. */
  get runningAllocations(): string[] {
    return this.runner.running();
  }

  /** Sends a final report, flushes what it can and stops. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.logTimer) clearInterval(this.logTimer);
    await this.commands?.stop().catch(() => undefined);
    await this.runner.stopAll('the agent is stopping');
    this.runner.shipLogs();
    if (this.session) {
      await this.report(true);
      await this.flush();
    }
  }

  private log(line: string): void {
    this.options.log?.(`[agent ${this.nodeId?.slice(0, 8) ?? 'new'}] ${line}`);
  }

  private async register(): Promise<void> {
    const detected = detectHost(this.config.dataDir, this.config.advertiseAddress);
    const host = { ...detected, cpuCores: this.config.cpuCores ?? detected.cpuCores };
    const accelerators = await detectAccelerators({ declared: this.config.devices });
    accelerators.warnings.forEach((w) => this.log(`accelerators: ${w}`));
    this.session = await this.hub.register(
      {
        ...host,
        accelerators: accelerators.devices.length,
        devices: accelerators.devices,
        joinToken: this.config.joinToken,
        nodeId: this.identity.read(),
        domainId: this.config.domainId,
        labels: this.config.labels,
        isHead: this.config.isHead,
        agentVersion: AGENT_VERSION,
        ...this.capabilities.current,
      },
      this.identity.credential() ?? this.config.reenrolmentToken,
    );
    this.identity.write(this.session.nodeId, this.session.credential, this.session.commandKey);
    this.devices = accelerators.devices;
    this.log(
      `registered in domain ${this.config.domainId} (${host.cpuCores} cores, ${host.memoryBytes} bytes, ${accelerators.devices.length} accelerators from ${accelerators.source})`,
    );
  }

  private async registerWithRetry(): Promise<void> {
    for (let delay = 500; !this.stopped; delay = Math.min(delay * 2, 10000)) {
      try {
        return await this.register();
      } catch (error) {
        const status = (error as { status?: number }).status;
        if ((error as { code?: string }).code === 'AUTH.NODE_CREDENTIAL_REQUIRED')
          throw new Error(
            `node ${this.nodeId} is registered and this agent has no valid credential for it: set HCN_REENROLMENT_TOKEN to a token from POST /v1/nodes/${this.nodeId}/reenrolment-token (admin), or remove ${this.config.dataDir}/node-id to join as a new node`,
          );
        if (status && status >= 400 && status < 500) throw error; // bad token or config: retrying will not help
        this.log(`hub unreachable (${(error as Error).message}); retrying in ${delay} ms`);
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  }

  private schedule(): void {
    if (this.stopped || !this.session) return;
    this.timer = setTimeout(() => void this.tick(), this.session.heartbeatIntervalSeconds * 1000);
  }

  private async tick(): Promise<void> {
    try {
      await this.report(false);
      await this.flush();
      if (++this.ticks % (this.options.identityCheckEvery ?? 3) === 0) await this.checkIdentity();
    } catch (error) {
      this.log(`heartbeat cycle failed: ${(error as Error).message}`);
    } finally {
      this.schedule();
    }
  }

  private async report(final: boolean): Promise<void> {
    const session = this.session;
    if (!session) return;
    const usage = await this.sampler.sample();
    const devices = await this.deviceUsage();
    const allocationUsage = this.runner.usage();
    this.outbox.add((seq) =>
      withMac(session.commandKey, {
        kind: 'heartbeat' as const,
        nodeId: session.nodeId,
        domainId: this.config.domainId,
        seq,
        sentAt: new Date().toISOString(),
        usage,
        ...(devices.length > 0 ? { devices } : {}),
        runningAllocations: this.runner.running(),
        ...(allocationUsage.length > 0 ? { allocationUsage } : {}),
        final,
      }),
    );
  }

  /** Usage of the registered devices now (the vendor tools are asked only when the node has devices). */
  private async deviceUsage(): Promise<DeviceUsage[]> {
    if (this.devices.length === 0) return [];
    return sampleDeviceUsage(new Set(this.devices.map((d) => d.vendor)), { declared: this.config.devices });
  }

  /** Puts an allocation or logs report in the outbox and flushes soon. */
  private enqueue(body: ReportBody): void {
    const session = this.session;
    if (!session) return;
    this.outbox.add((seq) =>
      withMac(session.commandKey, {
        ...body,
        nodeId: session.nodeId,
        domainId: this.config.domainId,
        seq,
        sentAt: new Date().toISOString(),
      }),
    );
    if (body.kind === 'allocation') void this.flush();
  }

  /** Publishes pending reports in order; on failure they stay in the outbox for the next attempt. */
  flush(): Promise<void> {
    // a flush that failed in any way never wedges the ones after it
    this.flushing = this.flushing
      .catch(() => undefined)
      .then(async () => {
        const session = this.session;
        while (session && this.outbox.size > 0) {
          const batch = this.outbox.peek(500, FLUSH_BYTES);
          try {
            await this.bus.publish(
              session.reportsTopic,
              batch.map((e) => ({ key: session.nodeId, value: JSON.stringify(e.body) })),
            );
            this.outbox.acknowledge(batch[batch.length - 1].seq);
          } catch (error) {
            this.log(`${this.outbox.size} reports kept in the outbox: ${(error as Error).message}`);
            return;
          }
        }
      });
    return this.flushing;
  }

  private async checkIdentity(): Promise<void> {
    const session = this.session;
    if (!session) return;
    const before = this.capabilities.describe();
    if (await this.capabilities.probe()) {
      this.log(`${before} -> ${this.capabilities.describe()}; registering again`);
      return this.register();
    }
    const self = await this.hub.whoAmI(session.credential).catch(() => session);
    if (self) return this.adoptCadence(self);
    this.log('the hub does not know this node any more: registering again');
    await this.register();
  }

  /** Keeps the heartbeat interval the hub tells (it scales it with the fleet's size), when it tells a valid one. */
  private adoptCadence(told: { heartbeatIntervalSeconds?: number; nodeTtlSeconds?: number }): void {
    const session = this.session;
    const interval = told.heartbeatIntervalSeconds;
    const valid = interval !== undefined && Number.isFinite(interval) && interval > 0;
    if (!session || !valid || interval === session.heartbeatIntervalSeconds) return;
    this.log(`heartbeat interval ${session.heartbeatIntervalSeconds} s -> ${interval} s (told by the hub)`);
    this.session = {
      ...session,
      heartbeatIntervalSeconds: interval,
      nodeTtlSeconds: told.nodeTtlSeconds ?? session.nodeTtlSeconds,
    };
  }

  /**
   * Consumes this node's commands from its domain's command topic; a batch that arrives before the agent registered
   * and recovered its allocations waits for `registered` (uncommitted meanwhile).
   */
  private async consumeCommands(nodeId: string, registered: Promise<void>): Promise<void> {
    this.commands = await this.bus.consume({
      groupId: `hcn-agent-${nodeId}`,
      topics: [commandTopicFor(this.config.domainId)],
      fromBeginning: false,
      handleBatch: async (messages) => {
        await registered;
        for (const message of messages) {
          if (message.key !== nodeId) continue;
          const parsed = agentCommandSchema.safeParse(JSON.parse(message.value.toString()));
          if (!parsed.success) throw new PoisonMessageError(`malformed command: ${parsed.error.message}`);
          const refused = commandRefusal(
            parsed.data,
            nodeId,
            this.session?.commandKey,
            this.applied,
            new Date(),
          );
          if (refused) {
            this.refused += 1;
            this.log(`refused command ${parsed.data.commandId} (${parsed.data.kind}): ${refused}`);
          } else if (this.applied.firstTime(parsed.data.commandId, parsed.data.issuedAt))
            this.applyTraced(parsed.data, message.headers.traceparent);
        }
      },
    });
  }

  /** Applies a command in a consumer span continuing the trace its message carries (when tracing is on). */
  private applyTraced(command: AgentCommand, traceparent: string | undefined): void {
    const span = startSpan(`agent ${command.kind}`, {
      kind: 'consumer',
      parent: traceparent,
      attributes: { 'hcn.command_id': command.commandId, 'hcn.node_id': command.nodeId },
    });
    try {
      span.run(() => this.apply(command));
      span.end();
    } catch (error) {
      span.end({ error });
      throw error;
    }
  }

  private apply(command: AgentCommand): void {
    switch (command.kind) {
      case 'drain':
        this.draining = true;
        this.log(`draining: ${command.reason}`);
        return;
      case 'stop':
        this.log(`stop requested by the hub: ${command.reason}`);
        void this.stop().then(() => this.options.onRemoteStop?.(command.reason));
        return;
      case 'run':
        this.log(
          `running allocation ${command.placement.allocationId}: ${command.placement.container?.image ?? ''} ${command.placement.command}`,
        );
        this.runner.run(withOpenedSecrets(command, this.session?.commandKey));
        return;
      case 'stop-allocation':
        this.log(`stopping allocation ${command.allocationId}: ${command.reason}`);
        void this.runner.stop(command);
        return;
      default: {
        const unreachable: never = command;
        throw new Error(`Unknown command ${JSON.stringify(unreachable)}`);
      }
    }
  }
}
