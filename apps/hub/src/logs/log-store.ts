import type { ParsedAgentReport } from '@hcn/contracts';
import type { DataSource } from 'typeorm';

type LogsReport = Extract<ParsedAgentReport, { kind: 'logs' }>;

/** Most bytes of one stream kept for the tail query (older chunks are pruned on write). */
const KEEP_BYTES = 4 * 1024 * 1024;
/** Most chunks of one stream kept (many tiny chunks cannot grow the table either). */
const KEEP_ROWS = 2048;

/** Output of allocations as shipped by agents, in `allocation_logs` (idempotent on byte offset). */
export class LogStore {
  constructor(private readonly dataSource: DataSource) {}

  /** Stores the chunks of some logs reports; a chunk already stored is ignored. */
  async store(reports: readonly LogsReport[]): Promise<void> {
    const rows = reports.flatMap((r) =>
      r.chunks.map((c) => ({
        allocation_id: r.allocationId,
        stream: c.stream,
        byte_offset: c.offset,
        workload_id: r.workloadId,
        node_id: r.nodeId,
        text: c.text,
      })),
    );
    if (rows.length === 0) return;
    await this.dataSource.query(
      `INSERT INTO allocation_logs (allocation_id, stream, byte_offset, workload_id, node_id, text, received_at)
       SELECT r.allocation_id, r.stream, r.byte_offset, r.workload_id, r.node_id, r.text, now()
       FROM jsonb_to_recordset($1::jsonb) AS r(allocation_id uuid, stream text, byte_offset bigint, workload_id uuid, node_id uuid, text text)
       ON CONFLICT DO NOTHING`,
      [JSON.stringify(rows)],
    );
    const touched = [...new Set(rows.map((r) => r.allocation_id))];
    await this.dataSource.query(
      `DELETE FROM allocation_logs l USING (
         SELECT allocation_id, stream, max(byte_offset) AS top FROM allocation_logs WHERE allocation_id = ANY($1) GROUP BY 1, 2
       ) m WHERE l.allocation_id = m.allocation_id AND l.stream = m.stream AND l.byte_offset < m.top - $2`,
      [touched, KEEP_BYTES],
    );
    await this.dataSource.query(
      `DELETE FROM allocation_logs l USING (
         SELECT allocation_id, stream, byte_offset,
                row_number() OVER (PARTITION BY allocation_id, stream ORDER BY byte_offset DESC) AS newest
         FROM allocation_logs WHERE allocation_id = ANY($1)
       ) n WHERE l.allocation_id = n.allocation_id AND l.stream = n.stream AND l.byte_offset = n.byte_offset
         AND n.newest > $2`,
      [touched, KEEP_ROWS],
    );
  }

  /** The last `lines` lines of one allocation's output (stdout and stderr each, or one of them). */
  async tail(
    allocationId: string,
    lines: number,
    stream?: 'stdout' | 'stderr',
  ): Promise<Array<{ stream: string; line: string }>> {
    const rows: Array<{ stream: string; text: string }> = await this.dataSource.query(
      `SELECT stream, text FROM allocation_logs WHERE allocation_id = $1 AND ($2::text IS NULL OR stream = $2)
       ORDER BY stream, byte_offset`,
      [allocationId, stream ?? null],
    );
    const byStream = new Map<string, string>();
    for (const row of rows) byStream.set(row.stream, (byStream.get(row.stream) ?? '') + row.text);
    const out: Array<{ stream: string; line: string }> = [];
    for (const [name, text] of byStream) {
      const all = text.split('\n');
      if (all[all.length - 1] === '') all.pop();
      out.push(...all.slice(-lines).map((line) => ({ stream: name, line })));
    }
    return out;
  }
}
