import { Logger } from '@nestjs/common';
import type { Caller } from '../../core/index.js';
import { socketAccess, type RealtimeEventType, type SocketRefusal } from './event-access.js';

export const AUTH_TIMEOUT_MS = 10_000;
/** Close code for every authentication failure, and for a credential that ends while open (contract §7). */
export const UNAUTHORIZED_CLOSE = 4401;
/** Close code for a credential that is valid but may not hold a socket (plan or scopes), at connect. */
export const FORBIDDEN_CLOSE = 4403;
/** Close code when checking the credential itself failed (the database or Redis did not answer). */
export const INTERNAL_ERROR_CLOSE = 1011;
const OPEN = 1;
export const MAX_TOKEN_LENGTH = 4096;

/** The part of a `ws` WebSocket a session uses. */
export interface SessionSocket {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  terminate(): void;
  ping(): void;
  on(event: 'message', listener: (data: unknown) => void): unknown;
  on(event: 'close' | 'pong', listener: () => void): unknown;
}

export interface SessionHooks {
  /** Resolves a session token or API key to its caller, or null. */
  authenticate(token: string): Promise<Caller | null>;
  /** The socket authenticated: from now on it receives its workspace's events. */
  opened(session: SocketSession): void;
  /** The socket closed, whatever its state. */
  closed(session: SocketSession): void;
}

type State = 'awaiting_auth' | 'authenticating' | 'open' | 'closed';

function textOf(data: unknown): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data as Buffer[]).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return String(data);
}

function parse(data: unknown): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(textOf(data));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function authToken(msg: Record<string, unknown> | null): string | null {
  if (msg?.type !== 'auth' || typeof msg.token !== 'string') return null;
  const token = msg.token.trim();
  return token.length > 0 && token.length <= MAX_TOKEN_LENGTH ? token : null;
}

/**
 * One socket's protocol: the first message must be `{type: "auth", token}` within the time limit;
 * anything else (another type, bad JSON, silence, a bad token) answers `auth.error` and closes 4401.
 * A valid credential that may not hold a socket (an API key without the plan or any event scope)
 * answers `auth.error` with that code and closes 4403. Once open: `ping` → `pong`, and the events of
 * the caller's workspace its credential may read are sent by the fan-out, until a check of the
 * credential (`confirm`) finds it ended.
 */
export class SocketSession {
  private readonly logger = new Logger('Realtime');
  private state: State = 'awaiting_auth';
  private timer?: NodeJS.Timeout;
  private alive = true;
  private events: ReadonlySet<RealtimeEventType> = new Set();
  /** The credential the socket authenticated with, kept to check it again while the socket is open. */
  token?: string;
  caller?: Caller;

  constructor(
    readonly socket: SessionSocket,
    private readonly hooks: SessionHooks,
    private readonly authTimeoutMs = AUTH_TIMEOUT_MS,
  ) {}

  start(): void {
    this.timer = setTimeout(() => this.reject(), this.authTimeoutMs);
    this.socket.on('message', (data: unknown) => void this.onMessage(data));
    this.socket.on('close', () => this.onClose());
    this.socket.on('pong', () => {
      this.alive = true;
    });
  }

  get isOpen(): boolean {
    return this.state === 'open';
  }

  /** Sends an event (an object, or text already serialised for many sockets) if the socket is open. */
  send(event: object | string): void {
    if (this.socket.readyState !== OPEN) return;
    this.socket.send(typeof event === 'string' ? event : JSON.stringify(event));
  }

  /** Sends a workspace event (already serialised) if the socket is open and its credential may read it. */
  deliver(type: RealtimeEventType, text: string): void {
    if (this.state === 'open' && this.events.has(type)) this.send(text);
  }

  /**
   * The outcome of checking the socket's credential again (null: no longer valid). A credential that
   * ended or lost access closes the socket with 4401 (contract §7); a valid one updates the caller.
   */
  confirm(caller: Caller | null): void {
    if (this.state !== 'open') return;
    const sameHolder = caller !== null && caller.userId === this.caller?.userId && caller.workspaceId === this.caller.workspaceId;
    const access = sameHolder ? socketAccess(caller) : ({ ok: false, code: 'unauthorized' } as const);
    if (!access.ok) {
      this.send({ type: 'auth.error', code: access.code });
      this.end(UNAUTHORIZED_CLOSE, access.code);
      return;
    }
    this.caller = caller!;
    this.events = access.events;
  }

  /** Called periodically: a socket that did not answer the previous ping is dead and is dropped. */
  heartbeat(): void {
    if (this.state !== 'open') return;
    if (!this.alive) {
      this.socket.terminate();
      return;
    }
    this.alive = false;
    this.socket.ping();
  }

  private async onMessage(data: unknown): Promise<void> {
    if (this.state === 'open') {
      if (parse(data)?.type === 'ping') this.send({ type: 'pong' });
      return;
    }
    // Messages sent while the token is being checked are not the first message: ignore them.
    if (this.state !== 'awaiting_auth') return;
    clearTimeout(this.timer);
    const token = authToken(parse(data));
    if (!token) return this.reject();
    this.state = 'authenticating';
    await this.authenticate(token);
  }

  private async authenticate(token: string): Promise<void> {
    let caller: Caller | null;
    try {
      caller = await this.hooks.authenticate(token);
    } catch (err) {
      this.logger.error({ msg: 'socket authentication failed', err: String(err) });
      this.end(INTERNAL_ERROR_CLOSE, 'internal_error');
      return;
    }
    if (this.state !== 'authenticating') return;
    if (!caller) return this.reject();
    const access = socketAccess(caller);
    if (!access.ok) return this.reject(access.code);
    this.caller = caller;
    this.token = token;
    this.events = access.events;
    this.state = 'open';
    this.hooks.opened(this);
    this.send({ type: 'auth.ok', user_id: caller.userId });
  }

  /** An unknown credential closes 4401; a valid one without the plan or scopes for a socket, 4403. */
  private reject(code: SocketRefusal = 'unauthorized'): void {
    if (this.state === 'closed' || this.state === 'open') return;
    this.send({ type: 'auth.error', code });
    this.end(code === 'unauthorized' ? UNAUTHORIZED_CLOSE : FORBIDDEN_CLOSE, code);
  }

  private end(code: number, reason: string): void {
    clearTimeout(this.timer);
    this.state = 'closed';
    this.socket.close(code, reason);
  }

  private onClose(): void {
    clearTimeout(this.timer);
    this.state = 'closed';
    this.hooks.closed(this);
  }
}
