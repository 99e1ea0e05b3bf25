import { PostgresEventStore } from '@hcn/eventstore';
import { MemoryMessageBus } from '@hcn/messaging';
import { freePort } from '@hcn/platform';
import { openReadModels } from '@hcn/read-models';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { loadHubConfig } from '../apps/hub/src/config';
import { Federation } from '../apps/hub/src/federation/federation';
import { RunningHub, startHub } from '../apps/hub/src/hub';
import { startPostgresForTests } from '../test/services/postgres';
import { FleetSimulator } from './fleet-simulator';
import { PLACEMENT_SITES, definePlacementTree } from './placement-tree';
import { progress, report } from './support';

const JOIN_TOKEN = 'bench-join-token-0123456789';
const ADMIN_TOKEN = 'bench-admin-token-0123456789';
const GOSSIP_SECRET = 'bench-gossip-secret-0123456789-0123456789';
const NODES = Number(process.env.BENCH_FED_NODES ?? 1000);
const WINDOW_S = Number(process.env.BENCH_FED_WINDOW_SECONDS ?? 60);
const SITES = ['site-a', 'site-b', 'site-c', 'site-d'];

/**
 * Bytes read and written on a server's federation connections, and its requests by path, from a point on. A
 * connection that carries any other request (a simulated node registering) is left out.
 */
class TrafficMeter {
  private readonly sockets = new Map<Socket, { read: number; written: number }>();
  private readonly other = new WeakSet<Socket>();
  private closed = { read: 0, written: 0 };
  private requests = new Map<string, number>();

  constructor(server: Server) {
    server.on('connection', (socket: Socket) => {
      this.sockets.set(socket, { read: 0, written: 0 });
      socket.once('close', () => {
        const from = this.sockets.get(socket);
        if (!from || this.other.has(socket)) return;
        this.closed.read += socket.bytesRead - from.read;
        this.closed.written += socket.bytesWritten - from.written;
        this.sockets.delete(socket);
      });
    });
    server.on('request', (req: { url?: string; socket: Socket }) => {
      if (!(req.url ?? '').startsWith('/v1/federation/')) {
        this.other.add(req.socket);
        return;
      }
      const path = (req.url ?? '').replace(/\/sites\/[^/]+\//, '/sites/:id/');
      this.requests.set(path, (this.requests.get(path) ?? 0) + 1);
    });
  }

  /** Counts from now on. */
  reset(): void {
    for (const [socket, from] of this.sockets) {
      from.read = socket.bytesRead;
      from.written = socket.bytesWritten;
    }
    this.closed = { read: 0, written: 0 };
    this.requests = new Map();
  }

  /** Bytes received (requests) and sent (answers) since the reset, and the requests by path. */
  read(): { bytesIn: number; bytesOut: number; requests: Record<string, number> } {
    let [bytesIn, bytesOut] = [this.closed.read, this.closed.written];
    for (const [socket, from] of this.sockets) {
      if (this.other.has(socket)) continue;
      bytesIn += socket.bytesRead - from.read;
      bytesOut += socket.bytesWritten - from.written;
    }
    return { bytesIn, bytesOut, requests: Object.fromEntries(this.requests) };
  }
}

/** One site: a hub on its own database, the meter on its listener. */
interface BenchSite {
  siteId: string;
  hub: RunningHub;
  federation: Federation;
  meter: TrafficMeter;
  close(): Promise<void>;
}

async function createDatabase(serverUrl: string, name: string): Promise<string> {
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function startSite(databaseUrl: string, env: Record<string, string>): Promise<BenchSite> {
  const store = await PostgresEventStore.connect({ connectionString: databaseUrl });
  const readModels: DataSource = await openReadModels(databaseUrl, 4);
  const config = loadHubConfig({
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    HCN_JOIN_TOKEN: JOIN_TOKEN,
    HCN_AGENT_SECRET: 'bench-agent-secret-0123456789-0123456789',
    HCN_ADMIN_TOKEN: ADMIN_TOKEN,
    HCN_NODE_TTL_SECONDS: '3600', // registered nodes stay online without heartbeats
    ...env,
  });
  const bus = new MemoryMessageBus();
  const hub = await startHub(config, { store, bus, readModels });
  const meter = new TrafficMeter(hub.app.getHttpServer() as Server);
  return {
    siteId: env.HCN_SITE_ID,
    hub,
    federation: hub.app.get(Federation),
    meter,
    close: async () => {
      await hub.close();
      await bus.close();
      await store.close();
      await readModels.destroy();
    },
  };
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** The mean per site of a window's figures. */
function meanOf(window: Awaited<ReturnType<typeof measure>>) {
  return {
    requestsPerMinute: Math.round(window.reduce((a, s) => a + s.requestsPerMinute, 0) / window.length),
    bytesPerMinute: Math.round(
      window.reduce((a, s) => a + s.bytesInPerMinute + s.bytesOutPerMinute, 0) / window.length,
    ),
  };
}

/** How often the changing site's summary changes in window 2 (a node registers). */
const CHANGE_EVERY_S = 10;

/** Per minute, from a count over `seconds`. */
const perMinute = (n: number, seconds = WINDOW_S) => Math.round((n * 60) / seconds);

async function measure(
  sites: readonly BenchSite[],
  during: () => Promise<void> = () => sleep(WINDOW_S * 1000),
) {
  for (const s of sites) s.meter.reset();
  const started = Date.now();
  await during();
  const seconds = (Date.now() - started) / 1000;
  return sites.map((s) => {
    const { bytesIn, bytesOut, requests } = s.meter.read();
    const total = Object.values(requests).reduce((a, b) => a + b, 0);
    return {
      siteId: s.siteId,
      requestsPerMinute: perMinute(total, seconds),
      bytesInPerMinute: perMinute(bytesIn, seconds),
      bytesOutPerMinute: perMinute(bytesOut, seconds),
      bytesPerRequest: total ? Math.round((bytesIn + bytesOut) / total) : 0,
      requests,
    };
  });
}

/**
 * `npm run bench -- federation-traffic`: federation traffic per site per minute at NODES nodes per site, default
 * settings (summary every 10 s, gossip every 1 s to 3 members, anti-entropy every 5 s). Four sites, each a hub on its
 * own database with NODES registered simulated nodes (the heterogeneous fleet over the placement tree: 20 domains,
 * 4 regions, accelerators of 5 models); site-b is site-a's child, all four gossip as static peers. Bytes are those
 * of the listeners' federation connections (HTTP headers and bodies, both ways; no TLS). Window 1: gossip alone, a
 * steady fleet (the link stopped); window 2: gossip while site-c's summary changes every CHANGE_EVERY_S (a node
 * registers); window 3: the link alone (gossip stopped), measured at the parent.
 */
export async function run(): Promise<void> {
  const postgres = await startPostgresForTests((line) => console.log(`[bench] ${line}`));
  const ports = await Promise.all(SITES.map(() => freePort()));
  const url = (i: number) => `http://127.0.0.1:${ports[i]}`;
  const sites: BenchSite[] = [];
  const fleets: FleetSimulator[] = [];
  try {
    for (let i = 0; i < SITES.length; i++) {
      const databaseUrl = await createDatabase(postgres.url, `bench_fed_${i}_${process.pid}`);
      const peers = SITES.map((id, j) => `${id}=${url(j)}`).filter((_, j) => j !== i);
      const env: Record<string, string> = {
        HCN_HTTP_PORT: String(ports[i]),
        HCN_SITE_ID: SITES[i],
        HCN_FEDERATION_PEERS: peers.join(','),
        HCN_FEDERATION_GOSSIP_SECRET: GOSSIP_SECRET,
      };
      if (i === 1) {
        const token = await fetch(`${url(0)}/v1/federation/join-tokens`, {
          method: 'POST',
          headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify({ siteId: SITES[1] }),
        });
        Object.assign(env, {
          HCN_FEDERATION_PARENT_URL: url(0),
          HCN_FEDERATION_JOIN_TOKEN: ((await token.json()) as { token: string }).token,
          HCN_FEDERATION_CREDENTIAL_FILE: `/tmp/hcn-bench-fed-${process.pid}.credential`,
        });
      }
      const site = await startSite(databaseUrl, env);
      sites.push(site);
      await definePlacementTree(site.hub.url, ADMIN_TOKEN);
      const fleet = new FleetSimulator({
        hubUrl: site.hub.url,
        joinToken: JOIN_TOKEN,
        bus: new MemoryMessageBus(),
        domains: PLACEMENT_SITES,
        heterogeneous: true,
      });
      await fleet.grow(NODES, 16, (done) => progress(`${SITES[i]}: registering nodes`, done, NODES));
      fleets.push(fleet);
    }
    const summary = sites[1].federation.summaries.next();
    await sites[1].federation.link?.stop();
    await new Promise((r) => setTimeout(r, 10_000)); // gossip has every member's summary
    console.log(`[bench] window 1: gossip alone, a steady fleet, ${WINDOW_S} s`);
    const gossip = await measure(sites);
    console.log(
      `[bench] window 2: gossip, site-c's summary changing every ${CHANGE_EVERY_S} s, ${WINDOW_S} s`,
    );
    const changes = WINDOW_S / CHANGE_EVERY_S;
    const gossipWithChange = await measure(sites, async () => {
      for (let i = 0; i < changes; i++) {
        await fleets[2].grow(1, 1);
        await sleep(CHANGE_EVERY_S * 1000);
      }
    });
    const seen = sites.map((s) => s.federation.gossip?.members().find((m) => m.siteId === 'site-c'));
    const seenOnline = seen.map((m) => m?.summary?.nodes.online ?? null);
    for (const s of sites) await s.federation.gossip?.stop();
    sites[1].federation.link?.start();
    await sleep(2000);
    console.log(`[bench] window 3: the link alone, ${WINDOW_S} s`);
    const [parent] = await measure(sites.slice(0, 1));
    report('federation-traffic', {
      nodesPerSite: NODES,
      sites: SITES.length,
      windowSeconds: WINDOW_S,
      settings: {
        summaryIntervalSeconds: 10,
        gossipIntervalMs: 1000,
        fanout: 3,
        antiEntropyIntervalMs: 5000,
      },
      summaryJsonBytes: Buffer.byteLength(JSON.stringify(summary)),
      summary: {
        domains: summary.domains.length,
        accelerators: summary.accelerators.length,
        regions: summary.regions.length,
        tags: summary.tags.length,
      },
      link: parent,
      gossip,
      gossipMeanPerSite: meanOf(gossip),
      gossipWithChange,
      gossipWithChangeMeanPerSite: meanOf(gossipWithChange),
      changesPerMinute: perMinute(changes),
      siteCNodesOnlineAsSeenByEachSite: seenOnline,
    });
  } finally {
    for (const s of sites) await s.close().catch(() => undefined);
    await postgres.stop();
  }
}
