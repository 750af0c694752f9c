import { Logger } from '@nestjs/common';
import type { Caller } from '../../core/index.js';

export const AUTH_TIMEOUT_MS = 10_000;
/** Close code for every authentication failure (contract §7). */
export const UNAUTHORIZED_CLOSE = 4401;
const INTERNAL_ERROR_CLOSE = 1011;
const OPEN = 1;
const MAX_TOKEN_LENGTH = 4096;

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
 * Once open: `ping` → `pong`, and events of the caller's workspace are sent by the fan-out.
 */
export class SocketSession {
  private readonly logger = new Logger('Realtime');
  private state: State = 'awaiting_auth';
  private timer?: NodeJS.Timeout;
  private alive = true;
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
    this.caller = caller;
    this.state = 'open';
    this.hooks.opened(this);
    this.send({ type: 'auth.ok', user_id: caller.userId });
  }

  private reject(): void {
    if (this.state === 'closed' || this.state === 'open') return;
    this.send({ type: 'auth.error', code: 'unauthorized' });
    this.end(UNAUTHORIZED_CLOSE, 'unauthorized');
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
