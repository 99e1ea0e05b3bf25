import { HcnError } from '@hcn/contracts';
import { EVENT_STORE, EventStore } from '@hcn/eventstore';
import { Inject, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import {
  ConnectedSocket,
  MessageBody,
  OnGatewayInit,
  SubscribeMessage,
  WebSocketGateway,
  WebSocketServer,
} from '@nestjs/websockets';
import type { Server, Socket } from 'socket.io';
import type { DataSource } from 'typeorm';
import { AgentCredentials, bearer } from '../auth/agent-credentials';
import { ApiTokens } from '../auth/api-tokens';
import type { Principal } from '../auth/principal';
import { loadVisibleWorkload } from '../commands/workload-command';
import type { HubConfig } from '../config';
import { HUB_CONFIG, READ_MODELS } from '../tokens';
import { ChangeListener } from './change-listener';
import { changeNotificationSchema, parseRoom, roomAccess, roomName, routeChange } from './rooms';

const logger = new Logger('change-feed');

/** What `subscribe` / `unsubscribe` acknowledge. */
export interface SubscribeAck {
  joined: string[];
  refused: Array<{ room: string; code: string }>;
}

function principalOf(socket: Socket): Principal {
  return socket.data.principal as Principal;
}

/**
 * The change feed (socket.io at `/socket.io`): relays the projector's `hcn_read_models` notifications to rooms.
 * Clients authenticate with an API token (`auth: { token }` or `Authorization: Bearer`), then emit `subscribe`
 * with room names (see rooms.ts) and receive `change` messages naming what changed; they refetch over REST.
 */
@WebSocketGateway({ path: '/socket.io', serveClient: false })
export class ChangeFeedGateway implements OnGatewayInit, OnModuleInit, OnModuleDestroy {
  @WebSocketServer() private server!: Server;
  private readonly listener: ChangeListener;

  constructor(
    @Inject(HUB_CONFIG) config: HubConfig,
    @Inject(READ_MODELS) private readonly db: DataSource,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly tokens: ApiTokens,
    private readonly credentials: AgentCredentials,
  ) {
    this.listener = new ChangeListener(
      config.databaseUrl,
      (payload) => void this.relay(payload).catch((e) => logger.warn(`${e}`)),
      () => this.refreshAll(),
    );
  }

  afterInit(server: Server): void {
    server.use((socket, next) => {
      const auth = socket.handshake.auth as { token?: unknown } | undefined;
      const presented =
        typeof auth?.token === 'string' ? auth.token : bearer(socket.handshake.headers.authorization);
      try {
        socket.data.principal = this.tokens.authenticate(presented, (token) => {
          try {
            this.credentials.nodeIdOf(token);
            return true;
          } catch {
            return false;
          }
        });
        next();
      } catch (error) {
        const code = error instanceof HcnError ? error.code : 'AUTH.INVALID_TOKEN';
        next(Object.assign(new Error(code), { data: { code } }));
      }
    });
  }

  async onModuleInit(): Promise<void> {
    await this.listener.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.listener.stop();
  }

  @SubscribeMessage('subscribe')
  async subscribe(@ConnectedSocket() socket: Socket, @MessageBody() rooms: unknown): Promise<SubscribeAck> {
    const ack: SubscribeAck = { joined: [], refused: [] };
    const names = Array.isArray(rooms) ? rooms.slice(0, 200) : [rooms];
    for (const name of names) {
      const room = parseRoom(name);
      if (!room) {
        ack.refused.push({ room: String(name), code: 'FEED.UNKNOWN_ROOM' });
        continue;
      }
      let code = roomAccess(principalOf(socket), room);
      if (code === 'check-workload' && room.kind === 'workload') {
        code = await loadVisibleWorkload(this.store, principalOf(socket), room.workloadId).then(
          () => null,
          (e: unknown) => (e instanceof HcnError ? e.code : 'WORKLOAD.NOT_FOUND'),
        );
      }
      if (code) {
        ack.refused.push({ room: roomName(room), code });
        continue;
      }
      await socket.join(roomName(room));
      ack.joined.push(roomName(room));
    }
    return ack;
  }

  @SubscribeMessage('unsubscribe')
  async unsubscribe(@ConnectedSocket() socket: Socket, @MessageBody() rooms: unknown): Promise<SubscribeAck> {
    const names = (Array.isArray(rooms) ? rooms : [rooms]).filter((r): r is string => typeof r === 'string');
    for (const name of names) await socket.leave(name);
    return { joined: [], refused: [] };
  }

  private async relay(payload: string): Promise<void> {
    const parsed = changeNotificationSchema.safeParse(JSON.parse(payload));
    if (!parsed.success || !this.server) return;
    const change = parsed.data;
    const namespaceOf = new Map<string, string>();
    if (change.workloads.length > 0) {
      const rows: Array<{ workload_id: string; namespace: string }> = await this.db.query(
        'SELECT workload_id, namespace FROM workload_state WHERE workload_id = ANY($1::uuid[])',
        [change.workloads],
      );
      for (const r of rows) namespaceOf.set(r.workload_id, r.namespace);
    }
    if (change.taskqueues.length > 0) {
      const rows: Array<{ queue_id: string; namespace: string }> = await this.db.query(
        'SELECT queue_id, namespace FROM taskqueue_state WHERE queue_id = ANY($1::uuid[])',
        [change.taskqueues],
      );
      for (const r of rows) namespaceOf.set(r.queue_id, r.namespace);
    }
    for (const message of routeChange(change, namespaceOf, this.openRooms())) {
      this.server.to(message.room).emit('change', message);
    }
  }

  private openRooms(): string[] {
    const sockets = new Set(this.server.sockets.sockets.keys());
    return [...this.server.sockets.adapter.rooms.keys()].filter((room) => !sockets.has(room));
  }

  private refreshAll(): void {
    if (!this.server) return;
    for (const room of this.openRooms()) this.server.to(room).emit('change', { room, refresh: true });
  }
}
