/**
 * Plants a bug in a real adapter for the length of one call: every request the adapter sends
 * through `fetch` whose URL matches `when` is rewritten by `bug` first (the token moved to the
 * query, the wrong Content-Type, an emptied body...). The fake then sees exactly what a buggy
 * adapter would send, so a test can prove the fake refuses it, where a kinder fake would have let
 * the bug through. Nothing in src/ knows about this; it only wraps the global `fetch`.
 */
export interface OutgoingRequest {
  url: URL;
  method: string;
  headers: Headers;
  body: RequestInit['body'];
}

export type RequestBug = (request: OutgoingRequest) => void;

export async function withRequestBug<T>(when: (url: URL, method: string) => boolean, bug: RequestBug, run: () => Promise<T>): Promise<T> {
  const realFetch = globalThis.fetch;
  const planted = (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const method = (init.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    if (!when(url, method)) return realFetch(input, init);
    const outgoing: OutgoingRequest = { url, method, headers: new Headers(init.headers), body: init.body };
    bug(outgoing);
    return realFetch(outgoing.url, { ...init, method: outgoing.method, headers: outgoing.headers, body: outgoing.body });
  };
  globalThis.fetch = planted;
  try {
    return await run();
  } finally {
    globalThis.fetch = realFetch;
  }
}

/** Matches requests to a path ending (and a method, when given). */
export function to(pathEnd: string, method?: string): (url: URL, m: string) => boolean {
  return (url, m) => url.pathname.endsWith(pathEnd) && (method === undefined || m === method);
}

/** The bearer token moved from the Authorization header to an `access_token` query parameter. */
export const tokenInQuery: RequestBug = (r) => {
  const token = r.headers.get('authorization')?.replace(/^Bearer /, '');
  r.headers.delete('authorization');
  if (token) r.url.searchParams.set('access_token', token);
};

/** The body kept, its Content-Type changed. */
export const contentType =
  (type: string): RequestBug =>
  (r) => {
    r.headers.set('content-type', type);
  };

/** The body dropped (its Content-Type kept). */
export const emptyBody: RequestBug = (r) => {
  r.body = '';
};

/** A JSON body rewritten by `change`. */
export const jsonBody =
  (change: (body: any) => void): RequestBug =>
  (r) => {
    if (typeof r.body !== 'string') throw new Error('jsonBody expects the JSON text the adapter sent');
    const body = JSON.parse(r.body);
    change(body);
    r.body = JSON.stringify(body);
  };
