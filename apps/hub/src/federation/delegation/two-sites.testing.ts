import { toNewEvents } from '@hcn/commands';
import {
  DelegationRequest,
  delegationRequestSchema,
  isEventOf,
  workloadSpecSchema,
  workloadStream,
} from '@hcn/contracts';
import { AGENT_REPORTS_TOPIC } from '@hcn/platform';
import { eventually, eventuallyExpect } from '@hcn/testing';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  HubHarness,
  processSpec,
  registerNode,
  signedReport,
  startHubHarness,
} from '../../testing/hub-harness';
import { sealDelegation } from './delegation-envelope';

const FAST = {
  HCN_FEDERATION_SITE_TTL_SECONDS: '3', // a loaded box may stall a hub for a second or two
  HCN_FEDERATION_SUMMARY_INTERVAL_SECONDS: '0.3',
  HCN_FEDERATION_LIVENESS_SWEEP_MS: '200',
};
const SYSTEM = { correlationId: 'spec', causationId: 'spec', actor: { kind: 'system' as const, id: 'spec' } };

/** The dotted code of an error answer. */
export function codeOf(body: unknown): string | undefined {
  const problem = body as { code?: string; error?: { code?: string } } | undefined;
  return problem?.code ?? problem?.error?.code;
}

/**
 * A parent hub and a child hub (`child-a`, one 16-core node, serving namespace `default`) on their own databases, the
 * child registered with the parent, for the specs of status flowing back and partitions. The parent's delegations
 * are given as its log would hold them and handed to the child as the parent's sender would (signed with the
 * credential the two share); the child's node reports as an agent does.
 */
export class TwoSites {
  parent!: HubHarness;
  child!: HubHarness;
  /** The site credential the two share (the child's credential file). */
  credential = '';
  private node!: { nodeId: string; commandKey: string };
  private seq = 0;
  private dir = '';

  /** Starts both hubs and registers the child with the parent. */
  async start(): Promise<void> {
    this.dir = mkdtempSync(join(tmpdir(), 'hcn-two-sites-'));
    this.parent = await startHubHarness({ ...FAST, HCN_SITE_ID: 'parent' });
    const issued = await this.parent.request('POST', '/v1/federation/join-tokens', {
      siteId: 'child-a',
      ttlSeconds: 600,
    });
    const credentialFile = join(this.dir, 'child-a.credential');
    this.child = await startHubHarness({
      ...FAST,
      HCN_NODE_TTL_SECONDS: '600', // no agent heartbeats here: the node stays online for the spec
      HCN_SITE_ID: 'child-a',
      HCN_FEDERATION_PARENT_URL: this.parent.hub.url,
      HCN_FEDERATION_JOIN_TOKEN: issued.body.token,
      HCN_FEDERATION_CREDENTIAL_FILE: credentialFile,
      HCN_FEDERATION_NAMESPACES: 'default',
    });
    this.node = await registerNode(this.child, { cpuCores: 16 });
    await eventually('the child registered with its parent', async () => {
      const link = await this.child.request('GET', '/v1/federation/link');
      return link.body.parent?.registered === true;
    });
    ({ credential: this.credential } = JSON.parse(readFileSync(credentialFile, 'utf8')) as {
      credential: string;
    });
  }

  async close(): Promise<void> {
    await this.child?.close();
    await this.parent?.close();
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
  }

  /** Event types of a workload's stream on one of the hubs. */
  async types(h: HubHarness, workloadId: string): Promise<string[]> {
    return (await h.store.readStream(workloadStream(workloadId))).map((e) => e.type);
  }

  /** One allocation of a parent workload as `GET /v1/workloads/:id` shows it. */
  async allocationOn(workloadId: string, allocationId: string) {
    const answer = await this.parent.request('GET', `/v1/workloads/${workloadId}`);
    return (answer.body.allocations as Array<{ allocationId: string; status: string }>).find(
      (a) => a.allocationId === allocationId,
    );
  }

  /** A workload of the parent delegated to `siteId` (allocation = delegation id), as the parent's log holds it. */
  async delegatedOnParent(
    rejected = false,
    siteId = 'child-a',
  ): Promise<{ workloadId: string; delegationId: string }> {
    const workloadId = randomUUID();
    const delegationId = randomUUID();
    const spec = workloadSpecSchema.parse(processSpec());
    const base = { workloadId, allocationId: delegationId, instance: 0, attempt: 0 };
    const decision = { hops: [], rejections: [], topK: 5, basis: { at: '0/0' } };
    const delegated = {
      ...base,
      generation: 1,
      siteId,
      relation: 'child',
      resources: spec.resources,
      decision,
    };
    const refusal = {
      ...base,
      scope: `site:${siteId}`,
      reason: 'timeout',
      detail: 'no answer in time',
      candidates: [],
      siteId,
      rejectedAt: new Date().toISOString(),
    };
    const events = [
      { type: 'WorkloadSubmitted', data: { workloadId, spec, idempotencyKey: null } },
      { type: 'AllocationDelegated', data: delegated },
      ...(rejected ? [{ type: 'DelegationRejected', data: refusal }] : []),
    ];
    const context = { ...SYSTEM, correlationId: workloadId, now: new Date() };
    await this.parent.store.append(workloadStream(workloadId), toNewEvents(events, context), 'no_stream');
    return { workloadId, delegationId };
  }

  /** Hands the delegation to the child, signed as the parent's sender signs it; answers the child's workload id. */
  async handToChild(workloadId: string, delegationId: string): Promise<string> {
    const request: DelegationRequest = delegationRequestSchema.parse({
      delegationId,
      parentSiteId: 'parent',
      parentWorkloadId: workloadId,
      namespace: 'default',
      spec: processSpec(),
    });
    const sealed = sealDelegation(this.credential, request, new Date());
    const answer = await this.child.request('POST', '/v1/federation/delegations', sealed);
    expect(answer.body).toMatchObject({ outcome: 'accepted' });
    return answer.body.workloadId as string;
  }

  /** The child's node reports on (or ships the output of: `logs`) its allocation of `childWorkloadId`, as an agent would. */
  async nodeReports(
    childWorkloadId: string,
    status: string,
    extra: Record<string, unknown> = {},
  ): Promise<void> {
    const placed = (await this.child.store.readStream(workloadStream(childWorkloadId))).find((e) =>
      isEventOf(e, 'AllocationPlaced'),
    );
    if (!isEventOf(placed, 'AllocationPlaced')) throw new Error('not placed on the child');
    const base = {
      nodeId: this.node.nodeId,
      domainId: 'site-a',
      seq: ++this.seq,
      sentAt: new Date().toISOString(),
      workloadId: childWorkloadId,
      allocationId: placed.data.allocationId,
    };
    const report =
      status === 'logs'
        ? { kind: 'logs', ...base, ...extra }
        : { kind: 'allocation', ...base, status, at: new Date().toISOString(), ...extra };
    const message = { key: this.node.nodeId, value: signedReport(this.node, report) };
    await this.child.bus.publish(AGENT_REPORTS_TOPIC, [message]);
  }

  /** A delegation taken by the child and running on its node, the parent told so. */
  async runningDelegation() {
    const { workloadId, delegationId } = await this.delegatedOnParent();
    const childWorkloadId = await this.handToChild(workloadId, delegationId);
    await this.nodeReports(childWorkloadId, 'started', { pid: 4242 });
    await eventuallyExpect(
      async () => expect((await this.allocationOn(workloadId, delegationId))?.status).toBe('running'),
      20_000,
    );
    return { workloadId, delegationId, childWorkloadId };
  }
}
