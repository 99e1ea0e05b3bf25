// The change feed: one socket.io connection per page, rooms joined on demand, `change` messages fanned out.
import { Socket, io } from 'socket.io-client';

/** A change message from the hub (apps/hub/src/gateway/rooms.ts). */
export interface Change {
  room: string;
  nodes?: string[];
  domains?: string[];
  workloads?: string[];
  namespaces?: string[];
  taskqueues?: string[];
  sites?: string[];
  refresh?: boolean;
}

type Listener = (change: Change) => void;

/** Connection state shown in the header. */
export type FeedState = 'connecting' | 'live' | 'offline';

/** One authenticated socket.io connection with reference-counted room subscriptions. */
export class Feed {
  private readonly socket: Socket;
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly stateListeners = new Set<(state: FeedState) => void>();
  state: FeedState = 'connecting';

  constructor(token: string) {
    this.socket = io({ path: '/socket.io', auth: { token }, transports: ['websocket'] });
    this.socket.on('connect', () => {
      this.setState('live');
      // Anything may have changed while disconnected.
      const rooms = [...this.listeners.keys()];
      if (rooms.length > 0) this.join(rooms);
    });
    this.socket.on('disconnect', () => this.setState('offline'));
    this.socket.on('connect_error', () => this.setState('offline'));
    this.socket.on('change', (change: Change) => this.dispatch(change));
  }

  /** Listens to a room's changes; returns the function that stops listening. */
  subscribe(room: string, listener: Listener): () => void {
    let set = this.listeners.get(room);
    if (!set) {
      set = new Set();
      this.listeners.set(room, set);
      if (this.socket.connected) this.join([room]);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) {
        this.listeners.delete(room);
        if (this.socket.connected) this.socket.emit('unsubscribe', [room]);
      }
    };
  }

  /** Follows the connection state; returns the function that stops following. */
  onState(listener: (state: FeedState) => void): () => void {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  }

  close(): void {
    this.socket.close();
  }

  /**
   * Joins rooms; once the hub has joined them, their listeners reload: a change committed after a view's first
   * load but before the join reached the hub would otherwise never be shown.
   */
  private join(rooms: string[]): void {
    this.socket.emit('subscribe', rooms, () => {
      for (const room of rooms) this.dispatch({ room, refresh: true });
    });
  }

  private setState(state: FeedState): void {
    this.state = state;
    for (const l of this.stateListeners) l(state);
  }

  private dispatch(change: Change): void {
    for (const l of this.listeners.get(change.room) ?? []) l(change);
  }
}
