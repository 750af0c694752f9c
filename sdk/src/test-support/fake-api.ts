/** A scripted stand-in for the API, as a fetch: each request is recorded and answered by `handle`. */
export interface SeenRequest {
  method: string;
  path: string;
  authorization: string | null;
  body: string;
}

export type Handler = (request: SeenRequest) => Response | Promise<Response>;

export interface FakeApi {
  fetch: (request: Request) => Promise<Response>;
  seen: SeenRequest[];
  /** The requests to `method path`, in order. */
  to(method: string, path: string): SeenRequest[];
}

export const BASE = 'https://api.example.test';

export function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

export function apiError(status: number, code: string, message = code): Response {
  return json(status, { statusCode: status, code, message, request_id: 'req_01J0000000000000000000000' });
}

export function fakeApi(handle: Handler): FakeApi {
  const seen: SeenRequest[] = [];
  return {
    seen,
    to: (method, path) => seen.filter((r) => r.method === method && r.path === path),
    async fetch(request) {
      const url = new URL(request.url);
      const entry = { method: request.method, path: url.pathname.replace(/^\/api\/v1/, ''), authorization: request.headers.get('authorization'), body: await request.text() };
      seen.push(entry);
      return handle(entry);
    },
  };
}
