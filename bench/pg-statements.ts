import { Client } from 'pg';

/**
 * PostgreSQL's own account of where its time goes, for diagnosis (`BENCH_PG_STATEMENTS=1`, which starts the
 * server with pg_stat_statements loaded): `reset` before a phase, `top` after it.
 */
export async function pgStatements(url: string, action: 'reset' | 'top'): Promise<string[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    if (action === 'reset') {
      await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
      await client.query('SELECT pg_stat_statements_reset()');
      return [];
    }
    const { rows } = await client.query<{ ms: string; calls: string; rows: string; query: string }>(
      `SELECT round(total_exec_time::numeric) AS ms, calls, rows,
              left(regexp_replace(query, '\\s+', ' ', 'g'), 140) AS query
       FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 20`,
    );
    const sizes = await client.query<{ type: string; events: string; bytes: string }>(
      `SELECT type, count(*) AS events, round(avg(octet_length(data::text) + octet_length(metadata::text))) AS bytes
       FROM hcn_events GROUP BY type ORDER BY sum(octet_length(data::text)) DESC LIMIT 12`,
    );
    return [
      ...rows.map((r) => `${r.ms} ms, ${r.calls} calls, ${r.rows} rows: ${r.query}`),
      ...sizes.rows.map((r) => `events ${r.type}: ${r.events}, ${r.bytes} bytes of data and metadata each`),
    ];
  } finally {
    await client.end();
  }
}

/** Whether this run collects PostgreSQL's statement figures. */
export const PG_STATEMENTS = process.env.BENCH_PG_STATEMENTS === '1';
if (PG_STATEMENTS) process.env.HCN_POSTGRES_SETTINGS = 'shared_preload_libraries=pg_stat_statements';
