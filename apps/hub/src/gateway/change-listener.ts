import { Client } from 'pg';
import { Logger } from '@nestjs/common';

const logger = new Logger('change-feed');

/** The channel the projector NOTIFYs after each committed batch. */
export const READ_MODEL_CHANNEL = 'hcn_read_models';

/**
 * LISTENs on `hcn_read_models` with its own connection and hands each payload to `onPayload`; reconnects after a
 * lost connection and then calls `onReconnect` (notifications sent meanwhile are lost, so listeners refresh).
 */
export class ChangeListener {
  private client: Client | undefined;
  private stopped = false;
  private retry: NodeJS.Timeout | undefined;

  constructor(
    private readonly databaseUrl: string,
    private readonly onPayload: (payload: string) => void,
    private readonly onReconnect: () => void,
    private readonly log: (line: string) => void = (line) => logger.warn(line),
  ) {}

  /** Connects and LISTENs; resolves once listening (or once a first failure has scheduled a retry). */
  async start(): Promise<void> {
    this.stopped = false;
    await this.connect(false);
  }

  private async connect(reconnect: boolean): Promise<void> {
    if (this.stopped) return;
    const client = new Client({ connectionString: this.databaseUrl });
    client.on('notification', (n) => {
      if (n.channel === READ_MODEL_CHANNEL && n.payload) this.onPayload(n.payload);
    });
    client.on('error', (e) => this.lost(client, e));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${READ_MODEL_CHANNEL}`);
      if (this.stopped) {
        await client.end().catch(() => undefined);
        return;
      }
      this.client = client;
      if (reconnect) this.onReconnect();
    } catch (error) {
      this.lost(client, error as Error);
    }
  }

  private lost(client: Client, error?: Error): void {
    if (this.stopped || (this.client && this.client !== client)) return;
    if (this.retry) return;
    this.client = undefined;
    this.log(`[change-feed] LISTEN connection lost${error ? `: ${error.message}` : ''}; reconnecting`);
    client.removeAllListeners('end');
    client.end().catch(() => undefined);
    this.retry = setTimeout(() => {
      this.retry = undefined;
      void this.connect(true);
    }, 1000);
  }

  /** Stops listening and closes the connection. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    this.retry = undefined;
    const client = this.client;
    this.client = undefined;
    if (client) {
      client.removeAllListeners('end');
      await client.end().catch(() => undefined);
    }
  }
}
