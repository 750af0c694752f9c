import { OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { OnGatewayConnection, WebSocketGateway } from '@nestjs/websockets';
import type { WebSocket } from 'ws';
import { AppConfig } from '../../config/index.js';
import type { Caller } from '../../core/index.js';
import { API_KEY_RECHECK_STRATEGY, API_KEY_STRATEGY, authenticateToken, isApiKeyToken, SESSION_RECHECK_STRATEGY, SESSION_STRATEGY } from '../auth/index.js';
import { ProcessLifecycle } from '../lifecycle/index.js';
import { RateLimiter } from '../rate-limit/index.js';
import { RealtimeBus } from './realtime.types.js';
import { SocketAccessWatch, WATCH_TICK_MS } from './socket-access-watch.js';
import { SocketSession } from './socket-session.js';
import { WorkspaceSockets } from './workspace-sockets.js';

export const SOCKET_PATH = '/api/v1/ws';
export const HEARTBEAT_MS = 30_000;
/** Clients send only small control messages. */
export const MAX_MESSAGE_BYTES = 16 * 1024;
/** RFC 6455 "going away": the server is stopping; clients reconnect (to another instance). */
export const GOING_AWAY_CLOSE = 1001;
const CLOSE_GRACE_MS = 1000;
const CLOSED = 3;

/**
 * The socket at /api/v1/ws (API role only). It authenticates each connection with the same
 * passport strategies as HTTP, delivers the bus's events to the sockets of their workspace that may
 * read them, and keeps checking each socket's credential while it is open (`SocketAccessWatch`). When
 * the process stops, every socket is closed with 1001 at once, and one that connects meanwhile too.
 */
@WebSocketGateway({ path: SOCKET_PATH, maxPayload: MAX_MESSAGE_BYTES })
export class RealtimeGateway implements OnGatewayConnection, OnModuleInit, OnModuleDestroy {
  private readonly sessions = new Set<SocketSession>();
  private readonly sockets = new WorkspaceSockets();
  private readonly watch: SocketAccessWatch;
  private heartbeat?: NodeJS.Timeout;
  private watchTimer?: NodeJS.Timeout;

  constructor(
    private readonly bus: RealtimeBus,
    limiter: RateLimiter,
    config: AppConfig,
    private readonly lifecycle: ProcessLifecycle,
  ) {
    this.watch = new SocketAccessWatch({
      readStamps: (workspaceIds) => limiter.readAccessStamps(workspaceIds),
      recheck: (token) => this.recheck(token),
      recheckMs: config.socketRecheckSeconds * 1000,
    });
  }

  async onModuleInit(): Promise<void> {
    await this.bus.listen((workspaceId, event) => this.sockets.deliver(workspaceId, event));
    this.heartbeat = setInterval(() => this.sessions.forEach((s) => s.heartbeat()), HEARTBEAT_MS);
    this.heartbeat.unref();
    this.watchTimer = setInterval(() => void this.watch.tick(), WATCH_TICK_MS);
    this.watchTimer.unref();
    this.lifecycle.onStop(async () => ({ sockets_closed: this.closeAll() }));
  }

  /**
   * Closes every socket with "going away"; answers how many. A client that does not answer the
   * close within a second is cut, so that it cannot hold the HTTP server (and the stop) open.
   */
  private closeAll(): number {
    const sockets = [...this.sessions].map((s) => s.socket);
    for (const socket of sockets) socket.close(GOING_AWAY_CLOSE, 'server stopping');
    setTimeout(() => sockets.forEach((socket) => socket.readyState !== CLOSED && socket.terminate()), CLOSE_GRACE_MS).unref();
    return sockets.length;
  }

  onModuleDestroy(): void {
    clearInterval(this.heartbeat);
    clearInterval(this.watchTimer);
  }

  handleConnection(socket: WebSocket): void {
    if (this.lifecycle.stopping) {
      socket.close(GOING_AWAY_CLOSE, 'server stopping');
      return;
    }
    const session = new SocketSession(socket, {
      authenticate: (token) => this.authenticate(token),
      opened: (s) => {
        this.sockets.add(s);
        void this.watch.add(s);
      },
      closed: (s) => {
        this.sockets.remove(s);
        this.watch.remove(s);
        this.sessions.delete(s);
      },
    });
    this.sessions.add(session);
    session.start();
  }

  /**
   * The socket's auth message, by the strategy HTTP would use (strategies are registered by name,
   * so platform code does not import the modules that provide them). The check counts it as one
   * request of its workspace, as on HTTP.
   */
  private async authenticate(token: string): Promise<Caller | null> {
    return (await authenticateToken(isApiKeyToken(token) ? API_KEY_STRATEGY : SESSION_STRATEGY, token))?.caller ?? null;
  }

  /** An open socket's credential checked again: read afresh, counting no request. */
  private async recheck(token: string): Promise<Caller | null> {
    return (await authenticateToken(isApiKeyToken(token) ? API_KEY_RECHECK_STRATEGY : SESSION_RECHECK_STRATEGY, token))?.caller ?? null;
  }
}
