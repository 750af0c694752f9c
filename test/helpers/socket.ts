import WebSocket from 'ws';

export interface TestSocket {
  ws: WebSocket;
  messages: Array<Record<string, any>>;
  send(msg: unknown): void;
  waitFor(pred: (m: Record<string, any>) => boolean, timeoutMs?: number): Promise<Record<string, any>>;
  closed: Promise<{ code: number; reason: string }>;
  close(): void;
}

/** Opens a raw socket; nothing is sent until the test says so. */
export async function openSocket(wsUrl: string): Promise<TestSocket> {
  const ws = new WebSocket(wsUrl);
  const messages: Array<Record<string, any>> = [];
  const waiters: Array<{ pred: (m: Record<string, any>) => boolean; resolve: (m: Record<string, any>) => void }> = [];
  ws.on('message', (data) => {
    const msg = JSON.parse((data as Buffer).toString('utf8'));
    messages.push(msg);
    for (const w of [...waiters]) {
      if (w.pred(msg)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(msg);
      }
    }
  });
  const closed = new Promise<{ code: number; reason: string }>((res) => ws.on('close', (code, reason) => res({ code, reason: reason.toString() })));
  await new Promise<void>((res, rej) => {
    ws.once('open', () => res());
    ws.once('error', rej);
  });
  return {
    ws,
    messages,
    closed,
    send: (msg) => ws.send(typeof msg === 'string' ? msg : JSON.stringify(msg)),
    waitFor(pred, timeoutMs = 10_000) {
      const seen = messages.find(pred);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const w = { pred, resolve: (m: Record<string, any>) => { clearTimeout(t); resolve(m); } };
        const t = setTimeout(() => {
          waiters.splice(waiters.indexOf(w), 1);
          reject(new Error(`no matching socket message in ${timeoutMs} ms; got ${JSON.stringify(messages)}`));
        }, timeoutMs);
        waiters.push(w);
      });
    },
    close: () => ws.close(),
  };
}

/** Opens a socket and authenticates it with a session token or API key. */
export async function authedSocket(wsUrl: string, token: string): Promise<TestSocket> {
  const s = await openSocket(wsUrl);
  s.send({ type: 'auth', token });
  await s.waitFor((m) => m.type === 'auth.ok' || m.type === 'auth.error');
  return s;
}

/** The socket's close, or a failure once `ms` have passed without one. */
export async function closedWithin(s: TestSocket, ms: number): Promise<{ code: number; reason: string }> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`socket still open after ${ms} ms; got ${JSON.stringify(s.messages)}`)), ms);
  });
  try {
    return await Promise.race([s.closed, late]);
  } finally {
    clearTimeout(timer);
  }
}
