import { Server, Socket, createConnection, createServer } from 'node:net';

/**
 * A TCP proxy to a loopback port that a test can cut and restore, to take a client off the network without killing
 * it. It listens on loopback unless given another local address (e.g. a container network's gateway).
 */
export class TcpProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();

  constructor(
    private readonly listenPort: number,
    private readonly targetPort: number,
    private readonly listenHost = '127.0.0.1',
  ) {}

  /** Accepts connections and forwards them to the target. */
  async open(): Promise<void> {
    if (this.server) return;
    // half-open on both sides: a client that shuts down its sending side (nc at the end of its input) still gets
    // the replies that are on their way
    const server = createServer({ allowHalfOpen: true }, (client) => {
      const upstream = createConnection({ host: '127.0.0.1', port: this.targetPort, allowHalfOpen: true });
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => s.destroy());
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.listenPort, this.listenHost, () => resolve());
    });
    this.server = server;
  }

  /** Drops every connection and refuses new ones. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const socket of this.sockets) socket.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** The test broker's proxied listener (`listen:target`), when `npm test` started one. */
export function testKafkaProxy(): { listen: number; target: number } | undefined {
  const value = process.env.HCN_TEST_KAFKA_PROXY;
  if (!value) return undefined;
  const [listen, target] = value.split(':').map(Number);
  return { listen, target };
}
