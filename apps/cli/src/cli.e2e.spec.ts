import { describeWithPostgres } from '@hcn/testing';
import { Client } from 'pg';
import { HubHarness, processSpec, registerNode, startHubHarness } from '../../hub/src/testing/hub-harness';
import { HcnRun, runHcn } from './testing/run-hcn';

/** Runs `hcn` (the bin launcher) as its own process against the harness's database. */
function hcn(h: HubHarness, ...argv: string[]): Promise<HcnRun> {
  return runHcn({ DATABASE_URL: h.database.url }, argv);
}

describeWithPostgres('hcn CLI (reads the log directly, real PostgreSQL)', () => {
  let h: HubHarness;
  let workloadId: string;
  let nodeId: string;
  beforeAll(async () => {
    h = await startHubHarness({ HCN_NODE_TTL_SECONDS: '600' });
    nodeId = (await registerNode(h, { hostname: 'cli-1' })).nodeId;
    const submitted = await h.request('POST', '/v1/workloads', processSpec());
    expect(submitted.status).toBe(201);
    workloadId = submitted.body.workloadId;
  });
  afterAll(async () => h?.close());

  it('replays a chain as a text tree and explains a decision (exit 0 on a match)', async () => {
    const replay = await hcn(h, 'audit', 'replay', workloadId);
    expect(replay.status).toBe(0);
    expect(replay.stdout).toContain(`site-a → node ${nodeId}`);
    const explain = await hcn(h, 'audit', 'explain', workloadId, '--hop', '0');
    expect([explain.status, explain.stdout]).toEqual([0, expect.stringContaining('MATCH')]);
    expect(explain.stderr).toContain('reading cluster events [');
    const asJson = await hcn(h, 'audit', 'explain', workloadId, '--decision', '0', '--json', '--quiet');
    expect(JSON.parse(asJson.stdout)).toMatchObject({ matches: true, differences: [] });
  });

  it('replays a chain as JSON: every hop from the root scope down to the node', async () => {
    const replay = await hcn(h, 'audit', 'replay', workloadId, '--json');
    expect(replay.status).toBe(0);
    const chain = JSON.parse(replay.stdout);
    expect(chain.workloadId).toBe(workloadId);
    const hops = chain.decisions[0].hops;
    expect(hops.map((hop: any) => hop.seq)).toEqual(hops.map((_: unknown, i: number) => i));
    expect(hops[0]).toMatchObject({ hop: 0, fromScope: null, toKind: 'domain', correlationId: workloadId });
    expect(hops[hops.length - 1]).toMatchObject({ fromScope: 'site-a', to: nodeId, toKind: 'node' });
    expect(chain.decisions[0].outcome).toMatchObject({ kind: 'placed', nodeId, domainId: 'site-a' });
  });

  it('prints the same report bytes twice and time-travels a node', async () => {
    const month = new Date().toISOString().slice(0, 7);
    const first = await hcn(h, 'report', 'compliance', '--month', month, '--format', 'csv', '--quiet');
    const second = await hcn(h, 'report', 'compliance', '--month', month, '--format', 'csv', '--quiet');
    expect(first.status).toBe(0);
    expect(first.stdout).toBe(second.stdout);
    expect(first.stdout).toContain('# availability');
    const node = await hcn(h, 'audit', 'node', nodeId);
    expect(JSON.parse(node.stdout)).toMatchObject({ status: 'online', domainId: 'site-a' });
    const domain = JSON.parse((await hcn(h, 'audit', 'domain', 'site-a')).stdout);
    expect(domain.members.map((m: any) => [m.nodeId, m.status])).toEqual([[nodeId, 'online']]);
    expect(domain.nodes).toEqual({ online: 1, offline: 0, draining: 0 });
  });

  it('fails clearly with a non-zero exit on bad input', async () => {
    const unknown = await hcn(h, 'audit', 'replay', '6d2c1f0e-6d2c-4f0e-8d2c-1f0e6d2c1f0e');
    expect([unknown.status, unknown.stderr]).toEqual([
      1,
      expect.stringContaining('AUDIT.WORKLOAD_NOT_FOUND'),
    ]);
    const period = await hcn(h, 'report', 'usage', '--month', '2026-13');
    expect([period.status, period.stderr]).toEqual([1, expect.stringContaining('AUDIT.PERIOD_INVALID')]);
    const at = await hcn(h, 'audit', 'node', nodeId, '--at', 'yesterday');
    expect([at.status, at.stderr]).toEqual([1, expect.stringContaining('AUDIT.INSTANT_INVALID')]);
    const missing = await hcn(h, 'audit', 'explain', workloadId);
    expect([missing.status, missing.stderr]).toEqual([2, expect.stringContaining('--hop N or --decision D')]);
  });

  it('verifies the hash chains of the log', async () => {
    const verify = await hcn(h, 'audit', 'verify', '--quiet');
    expect([verify.status, JSON.parse(verify.stdout).ok]).toEqual([0, true]);
  });

  it('exits 3 ("could not check", not "broken") for a stream the log does not hold or a log it cannot reach', async () => {
    const missing = await hcn(h, 'audit', 'verify', '--stream', 'node-nowhere', '--quiet');
    expect([missing.status, missing.stdout]).toEqual([3, '']);
    expect(missing.stderr).toContain(
      'hcn: AUDIT.STREAM_NOT_FOUND: could not check: Stream node-nowhere has no retained events',
    );
    const url = new URL(h.database.url);
    url.port = '1';
    const unreachable = await runHcn({ DATABASE_URL: url.toString() }, ['audit', 'verify', '--quiet']);
    expect([unreachable.status, unreachable.stdout]).toEqual([3, '']);
    expect(unreachable.stderr).toMatch(/^hcn: CLI\.LOG_UNREACHABLE: cannot read the event log: .+\n$/);
    const unset = await runHcn({}, ['audit', 'verify', '--quiet']);
    expect([unset.status, unset.stderr]).toEqual([3, expect.stringContaining('Set DATABASE_URL')]);
  });

  it('reports exactly the event one byte of whose stored data was changed, and exits 1', async () => {
    const sql = new Client({ connectionString: h.database.url });
    await sql.connect();
    const tamper = (from: string, to: string) =>
      sql.query(
        `UPDATE hcn_events SET data = replace(data::text, $2, $3)::jsonb
         WHERE stream_id = $1 AND revision = 0 RETURNING event_id`,
        [`node-${nodeId}`, from, to],
      );
    try {
      const changed = await tamper('"cli-1"', '"cli-2"');
      expect(changed.rowCount).toBe(1);
      const verify = await hcn(h, 'audit', 'verify', '--quiet');
      const report = JSON.parse(verify.stdout);
      expect([verify.status, report.ok, report.brokenCount]).toEqual([1, false, 1]);
      expect(report.firstBroken).toMatchObject({
        streamId: `node-${nodeId}`,
        revision: 0,
        eventId: changed.rows[0].event_id,
        reason: 'content',
      });
      expect(report.broken.map((b: any) => b.eventId)).toEqual([changed.rows[0].event_id]);
    } finally {
      await tamper('"cli-2"', '"cli-1"');
      await sql.end();
    }
  });
});
