import type { WebSocketLike } from '../socket.js';

type Listener = (event: never) => void;

/**
 * A WebSocket the test drives: `instances` holds every one made; it opens on the next tick, records
 * what the client sends, and delivers what the test `receive`s. Closing it (either side) fires `close`.
 */
export class FakeSocket implements WebSocketLike {
  static instances: FakeSocket[] = [];
  readonly sent: Array<Record<string, unknown>> = [];
  closed?: number;
  private readonly listeners = new Map<string, Listener[]>();

  constructor(readonly url: string) {
    FakeSocket.instances.push(this);
    setTimeout(() => this.emit('open', {}), 0);
  }

  addEventListener(type: string, listener: Listener): void {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }

  send(data: string): void {
    this.sent.push(JSON.parse(data) as Record<string, unknown>);
  }

  close(code = 1000): void {
    if (this.closed !== undefined) return;
    this.closed = code;
    this.emit('close', { code });
  }

  /** A message from the server. */
  receive(message: unknown): void {
    this.emit('message', { data: JSON.stringify(message) });
  }

  private emit(type: string, event: object): void {
    for (const listener of this.listeners.get(type) ?? []) listener(event as never);
  }
}
