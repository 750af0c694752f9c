/** A small JSON client for seeding. Load itself goes through autocannon, not this. */
export interface ApiResponse<T = unknown> {
  status: number;
  body: T;
  headers: Headers;
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  /** Statuses that count as success; anything else throws with the answer's body. */
  expect?: number | number[];
}

export class ApiClient {
  constructor(readonly baseUrl: string) {}

  async request<T = unknown>(method: string, path: string, opts: RequestOptions = {}): Promise<ApiResponse<T>> {
    const expected = opts.expect === undefined ? [200, 201, 204] : ([] as number[]).concat(opts.expect);
    // Seeding may trip a rate limit (e.g. when the bench knob is not honoured): wait it out, briefly.
    for (let attempt = 0; ; attempt++) {
      const res = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers: {
          ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
        },
        body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      });
      const text = await res.text();
      const body = text ? safeJson(text) : undefined;
      if (res.status === 429 && attempt < 3 && !expected.includes(429)) {
        const wait = Math.min(Number(res.headers.get('retry-after') ?? '1'), 20);
        console.error(`  seeding: ${method} ${path} answered 429; waiting ${wait} s`);
        await new Promise((r) => setTimeout(r, wait * 1000));
        continue;
      }
      if (!expected.includes(res.status)) {
        throw new Error(`${method} ${path} answered ${res.status}, expected ${expected.join('/')}: ${text.slice(0, 500)}`);
      }
      return { status: res.status, body: body as T, headers: res.headers };
    }
  }

  get<T = unknown>(path: string, opts?: RequestOptions) {
    return this.request<T>('GET', path, opts);
  }

  post<T = unknown>(path: string, body: unknown, opts: RequestOptions = {}) {
    return this.request<T>('POST', path, { ...opts, body });
  }

  patch<T = unknown>(path: string, body: unknown, opts: RequestOptions = {}) {
    return this.request<T>('PATCH', path, { ...opts, body });
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Runs `fn` over `items` with at most `limit` in flight. */
export async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i], i);
    }
  });
  await Promise.all(lanes);
  return results;
}
