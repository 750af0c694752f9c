/**
 * The part of a WebSocket the SDK uses: the browser's (and Node 22's) global `WebSocket` and the
 * `ws` package's class both fit, so the SDK needs neither.
 */
export interface WebSocketLike {
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: 'open' | 'error', listener: () => void): void;
  addEventListener(type: 'close', listener: (event: { code: number }) => void): void;
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void;
}

export type WebSocketConstructor = new (url: string) => WebSocketLike;

/** `<origin>/api/v1` → `ws(s)://<origin>/api/v1/ws`. */
export function socketUrlOf(apiUrl: string): string {
  return `${apiUrl.replace(/^http/, 'ws')}/ws`;
}

/** The WebSocket class to use: the one given, else the platform's global one, else none. */
export function webSocketClass(given?: WebSocketConstructor): WebSocketConstructor | undefined {
  return given ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
}

/** A socket message as JSON, or null for anything else (binary, bad JSON, not an object). */
export function parseMessage(data: unknown): Record<string, unknown> | null {
  let text: string;
  if (typeof data === 'string') text = data;
  else if (data instanceof ArrayBuffer) text = new TextDecoder().decode(new Uint8Array(data));
  else if (ArrayBuffer.isView(data)) text = new TextDecoder().decode(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
  else return null;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
