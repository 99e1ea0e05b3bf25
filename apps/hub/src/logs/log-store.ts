import type { ParsedAgentReport } from '@hcn/contracts';
import type { DataSource } from 'typeorm';

type LogsReport = Extract<ParsedAgentReport, { kind: 'logs' }>;

/** Most bytes of one stream kept for the tail query (older chunks are pruned on write). */
const KEEP_BYTES = 4 * 1024 * 1024;
/** Most chunks of one stream kept (many tiny chunks cannot grow the table either). */
const KEEP_ROWS = 2048;

/**
 * Inserts each chunk's bytes beyond what the stream already holds from the chunk's offset on: a chunk already stored
 * is ignored, and one that overlaps the end of the stored output (an agent that came back re-reads a container's
 * output from its start and ships it again in other chunks) adds only its new tail, cut at a character boundary.
 */
const INSERT_UNCOVERED = `
  WITH r AS (
    SELECT r.*, octet_length(r.text) AS len, convert_to(r.text, 'UTF8') AS bytes,
      (SELECT l.byte_offset + octet_length(l.text) FROM allocation_logs l
        WHERE l.allocation_id = r.allocation_id AND l.stream = r.stream AND l.byte_offset <= r.byte_offset
        ORDER BY l.byte_offset DESC LIMIT 1) AS covered
    FROM jsonb_to_recordset($1::jsonb)
      AS r(allocation_id uuid, stream text, byte_offset bigint, workload_id uuid, node_id uuid, text text)
  ), fresh AS (
    SELECT r.*, GREATEST(r.byte_offset, COALESCE(r.covered, 0)) AS from_offset FROM r
    WHERE r.covered IS NULL OR r.covered < r.byte_offset + r.len
  )
  INSERT INTO allocation_logs (allocation_id, stream, byte_offset, workload_id, node_id, text, received_at)
  SELECT f.allocation_id, f.stream, f.from_offset, f.workload_id, f.node_id,
    CASE WHEN f.from_offset = f.byte_offset THEN f.text
         ELSE convert_from(substring(f.bytes FROM (f.from_offset - f.byte_offset + 1)::int), 'UTF8') END, now()
  FROM fresh f
  WHERE f.from_offset = f.byte_offset OR get_byte(f.bytes, (f.from_offset - f.byte_offset)::int) & 192 <> 128
  ON CONFLICT DO NOTHING`;

/** Output of allocations as shipped by agents, in `allocation_logs` (idempotent on byte offset, overlaps cut). */
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
    await this.dataSource.query(INSERT_UNCOVERED, [JSON.stringify(rows)]);
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
