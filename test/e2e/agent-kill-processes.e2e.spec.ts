import { workloadStream } from '@hcn/contracts';
import { IncomingMessage, KafkaMessageBus } from '@hcn/messaging';
import { AGENT_REPORTS_TOPIC } from '@hcn/platform';
import {
  AppProcess,
  describeWithKafka,
  describeWithPostgres,
  eventuallyExpect,
  testKafkaBrokers,
} from '@hcn/testing';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { procStat } from '../../apps/agent/src/executors/process-stamp';
import { detectCgroupMode } from '../../apps/agent/src/isolation/cgroups';
import {
  HubHarness,
  TEST_JOIN_TOKEN,
  processSpec,
  startHubHarness,
} from '../../apps/hub/src/testing/hub-harness';

const REASON = 'the agent restarted while the allocation ran';
const CGROUP_ROOT = process.env.HCN_CGROUP_ROOT ?? '/sys/fs/cgroup';
/** Where the agent puts each process allocation in a cgroup, a descendant that leaves the group is reaped too. */
const CGROUPS = detectCgroupMode() !== 'none';
/** With cgroups, one child of the shell workload leaves its process group (its own session). */
const ESCAPE = CGROUPS ? 'setsid sleep 300 & ' : '';

/** A process as seen once: its pid and start time (so a reused pid is not mistaken for it). */
interface Seen {
  readonly pid: number;
  readonly startTime: number;
}

/** Every live (not zombie: PID 1 here may not reap orphans) process of group `pgrp`. */
function groupOf(pgrp: number): Seen[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .flatMap((name) => {
      const stat = procStat(Number(name));
      return stat && stat.pgrp === pgrp && stat.state !== 'Z'
        ? [{ pid: Number(name), startTime: stat.startTime }]
        : [];
    });
}

/** Whether that very process still runs. */
function alive({ pid, startTime }: Seen): boolean {
  const stat = procStat(pid);
  return stat !== undefined && stat.state !== 'Z' && stat.startTime === startTime;
}

/** The allocation's cgroup where the agent made one (v1: memory controller; v2: unified). */
function cgroupOf(allocationId: string): string | undefined {
  return [
    join(CGROUP_ROOT, 'memory', 'hcn-agent', allocationId),
    join(CGROUP_ROOT, 'hcn-agent', allocationId),
  ].find(existsSync);
}

/** The live processes in a cgroup. */
function cgroupMembers(dir: string): Seen[] {
  return readFileSync(join(dir, 'cgroup.procs'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .flatMap((pid) => {
      const stat = procStat(Number(pid));
      return stat && stat.state !== 'Z' ? [{ pid: Number(pid), startTime: stat.startTime }] : [];
    });
}

/** The processes of one allocation: its leader's group, and whatever else is in its cgroup. */
function processesOf(leader: number, cgroup: string | undefined): Seen[] {
  const all = [...groupOf(leader), ...(cgroup ? cgroupMembers(cgroup) : [])];
  return all.filter((p, i) => all.findIndex((q) => q.pid === p.pid) === i);
}

/**
 * The agent as its own OS process (over Kafka) runs three process workloads, one with children; SIGKILL leaves
 * them orphaned, and a new agent process on the same data directory kills every process of their groups from
 * its allocation file, reports each allocation failed once, and the hub applies the restart policies: nothing
 * runs twice, nothing is left behind, the node is online.
 */
describeWithPostgres('an agent killed with SIGKILL while process workloads run', () => {
  describeWithKafka('with a broker', () => {
    let h: HubHarness;
    let bus: KafkaMessageBus;
    let dataDir: string;
    let agent: AppProcess;
    const reports: Array<Record<string, unknown>> = [];
    let stopReports: (() => Promise<void>) | undefined;
    const stateFile = (): Record<string, { pid?: number }> =>
      JSON.parse(readFileSync(join(dataDir, 'allocations.json'), 'utf8'));

    const startAgent = (): AppProcess =>
      new AppProcess('process-agent', 'apps/agent/src/main.ts', {
        HCN_HUB_URL: h.hub.url,
        HCN_JOIN_TOKEN: TEST_JOIN_TOKEN,
        HCN_DOMAIN: 'site-kill',
        HCN_DATA_DIR: dataDir,
        KAFKA_BROKERS: testKafkaBrokers().join(','),
      }).start();
    const agentRunning = () =>
      eventuallyExpect(() => expect(agent.output).toMatch(/node \S+ running/), 60000);

    beforeAll(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'hcn-kill-'));
      bus = new KafkaMessageBus({ brokers: testKafkaBrokers(), clientId: 'hcn-kill-spec' });
      h = await startHubHarness({ HCN_NODE_TTL_SECONDS: '60', HCN_HEARTBEAT_INTERVAL_SECONDS: '1' }, bus);
      const consumer = await bus.consume({
        groupId: 'hcn-kill-spec-reports',
        topics: [AGENT_REPORTS_TOPIC],
        fromBeginning: true,
        handleBatch: async (batch: IncomingMessage[]) => {
          for (const m of batch) reports.push(JSON.parse(m.value.toString()));
        },
      });
      stopReports = () => consumer.stop();
      agent = startAgent();
      await agentRunning();
    }, 90000);

    afterAll(async () => {
      await agent?.kill('SIGTERM'); // stops what the second life runs
      await stopReports?.();
      await h?.close();
      await bus?.close();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    }, 60000);

    const submit = async (name: string, overrides: Record<string, unknown>): Promise<string> => {
      const response = await h.request('POST', '/v1/workloads', processSpec({ name, ...overrides }));
      expect(response.status).toBe(201);
      return response.body.workloadId as string;
    };
    const view = async (id: string) => (await h.request('GET', `/v1/workloads/${id}`)).body;
    const events = async (id: string) => h.store.readStream(workloadStream(id));
    const failedReports = (allocationId: string) =>
      reports.filter(
        (r) => r.kind === 'allocation' && r.allocationId === allocationId && r.status === 'failed',
      );

    it('kills every process of their groups, reports each allocation failed once, restarts by policy', async () => {
      const never = {
        a: await submit('sleeper-a', { command: 'sleep', args: ['300'] }),
        b: await submit('sleeper-b', { command: 'sh', args: ['-c', `sleep 300 & ${ESCAPE}sleep 300`] }),
      };
      const retried = await submit('sleeper-c', {
        command: 'sleep',
        args: ['300'],
        restartPolicy: { policy: 'on-failure', maxRetries: 1, backoffSeconds: 0.1 },
      });
      const ids = [never.a, never.b, retried];
      for (const id of ids)
        await eventuallyExpect(async () => expect((await view(id)).status).toBe('running'), 30000);
      const first = await Promise.all(ids.map(async (id) => (await view(id)).allocations[0]));
      const allocationIds = first.map((a) => a.allocationId as string);
      const nodeId = first[0].nodeId as string;

      // The allocation file names each allocation's group leader; the shell's background child is in its group.
      await eventuallyExpect(() =>
        expect(Object.keys(stateFile()).sort()).toEqual([...allocationIds].sort()),
      );
      const leaders = allocationIds.map((id) => stateFile()[id].pid as number);
      await eventuallyExpect(() => expect(groupOf(leaders[1]).length).toBeGreaterThanOrEqual(2));
      const cgroups = allocationIds.map(cgroupOf);
      expect(cgroups.every((dir) => (dir !== undefined) === CGROUPS)).toBe(true);
      if (CGROUPS)
        await eventuallyExpect(() => expect(cgroupMembers(cgroups[1]!).length).toBeGreaterThanOrEqual(3));
      const members = leaders.flatMap((pid, i) => processesOf(pid, cgroups[i]));
      for (const pid of leaders) expect(procStat(pid)?.pgrp).toBe(pid);
      const escaped = members.filter((m) => !leaders.includes(procStat(m.pid)?.pgrp ?? -1));
      expect(escaped).toHaveLength(CGROUPS ? 1 : 0);
      expect(members.length).toBeGreaterThanOrEqual(CGROUPS ? 5 : 4);

      await agent.kill('SIGKILL');
      expect(members.filter((m) => !alive(m))).toEqual([]); // orphaned, not ended with the agent
      const restartedAt = Date.now();
      agent = startAgent();
      await eventuallyExpect(() => expect(members.filter(alive)).toEqual([]), 30000);
      const killedWithin = Date.now() - restartedAt;
      await agentRunning();

      // The hub: the two `never` workloads failed; the `on-failure` one runs a new attempt on the same node.
      for (const id of [never.a, never.b])
        await eventuallyExpect(async () => expect((await view(id)).status).toBe('failed'), 30000);
      await eventuallyExpect(async () => {
        const instance = (await view(retried)).instances[0];
        expect(instance).toMatchObject({ status: 'running', attempt: 1 });
        expect(instance.allocationId).not.toBe(allocationIds[2]);
      }, 30000);
      const second = (await view(retried)).instances[0].allocationId as string;
      expect((await view(retried)).allocations.find((a: any) => a.allocationId === second).nodeId).toBe(
        nodeId,
      );

      // Each old allocation: one failure with the reason, recorded once; every allocation started once.
      for (const [i, id] of ids.entries()) {
        const recorded = await events(id);
        const failed = recorded.filter((e) => e.type === 'AllocationFailed');
        expect(failed.map((e) => e.data)).toEqual([
          expect.objectContaining({ allocationId: allocationIds[i], reason: REASON }),
        ]);
        expect(recorded.filter((e) => e.type === 'AllocationLost')).toEqual([]);
        const started = recorded
          .filter((e) => e.type === 'AllocationStarted')
          .map((e) => (e.data as any).allocationId);
        expect(started).toEqual(id === retried ? [allocationIds[i], second] : [allocationIds[i]]);
      }
      await eventuallyExpect(() =>
        allocationIds.forEach((id) => expect(failedReports(id).length).toBeGreaterThan(0)),
      );
      for (const id of allocationIds)
        expect(failedReports(id)).toEqual([expect.objectContaining({ reason: REASON })]);

      // The agent's file lists only the new attempt; the old cgroups are gone; the node is online.
      await eventuallyExpect(() => expect(Object.keys(stateFile())).toEqual([second]));
      expect(cgroups.filter((dir) => dir !== undefined && existsSync(dir))).toEqual([]);
      await eventuallyExpect(async () =>
        expect((await h.request('GET', `/v1/nodes/${nodeId}`)).body.status).toBe('online'),
      );
      console.log(
        `[spec] ${members.length} orphaned processes (${escaped.length} outside their group) gone ${killedWithin} ms after the restart`,
      );
    }, 150000);
  });
});
