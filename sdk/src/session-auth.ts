import createClient, { type Middleware } from 'openapi-fetch';
import { PersonaApiError, SessionRefreshError } from './errors.js';
import type { paths } from './generated/schema.js';

/** A session's token pair, as `POST /auth/login` and `POST /auth/refresh` answer it. */
export interface SessionTokens {
  accessToken: string;
  refreshToken: string;
}

export interface SessionOptions extends SessionTokens {
  /** Called with every new pair after a refresh (the refresh token rotates): persist them here. */
  onTokens?: (tokens: SessionTokens) => void | Promise<void>;
}

export type FetchLike = (request: Request) => Promise<Response>;

/** A refresh that the server refused for good: the session is over, retrying cannot help. */
const SESSION_ENDED = new Set(['invalid_refresh_token', 'refresh_token_reused']);

/**
 * Session credentials for a client: every request carries the current access token; an answer
 * `401 unauthorized` (the token expired or was revoked) makes it refresh the pair once and send the
 * request again once with the new token. Refreshes are single-flight: the API counts two refreshes
 * with one refresh token as reuse and ends the session, so concurrent 401s share one refresh call.
 */
export class SessionAuth {
  private tokens: SessionTokens;
  private refreshing?: Promise<string>;
  private ended?: SessionRefreshError;
  /** The token each request went out with, and a copy of it to send again (its body is spent). */
  private readonly sent = new WeakMap<Request, { token: string; copy: Request }>();

  constructor(
    private readonly apiUrl: string,
    private readonly options: SessionOptions,
    private readonly fetch: FetchLike,
  ) {
    this.tokens = { accessToken: options.accessToken, refreshToken: options.refreshToken };
  }

  /** The pair in use now (after any refresh). */
  current(): SessionTokens {
    return { ...this.tokens };
  }

  /**
   * A fresh access token for a request that was refused with `stale`: when another request has
   * refreshed since, its token; otherwise the one refresh in flight, started here if none is.
   */
  async refresh(stale: string): Promise<string> {
    if (this.ended) throw this.ended;
    if (this.tokens.accessToken !== stale) return this.tokens.accessToken;
    this.refreshing ??= this.exchange().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  private async exchange(): Promise<string> {
    const anonymous = createClient<paths>({ baseUrl: this.apiUrl, fetch: this.fetch });
    const { data, error, response } = await anonymous.POST('/auth/refresh', { body: { refresh_token: this.tokens.refreshToken } });
    if (!data) {
      const failure = new SessionRefreshError(response.status, error);
      if (SESSION_ENDED.has(failure.code)) this.ended = failure;
      throw failure;
    }
    this.tokens = { accessToken: data.access_token, refreshToken: data.refresh_token };
    await this.options.onTokens?.(this.current());
    return data.access_token;
  }

  middleware(): Middleware {
    return {
      onRequest: ({ request }) => {
        const token = this.tokens.accessToken;
        request.headers.set('Authorization', `Bearer ${token}`);
        this.sent.set(request, { token, copy: request.clone() });
        return request;
      },
      onResponse: async ({ request, response, options }) => {
        const sent = this.sent.get(request);
        if (response.status !== 401 || !sent || (await errorCode(response)) !== 'unauthorized') return undefined;
        const fresh = await this.refresh(sent.token);
        sent.copy.headers.set('Authorization', `Bearer ${fresh}`);
        // Sent once more, as is: a second 401 is the answer (no refresh loop).
        return options.fetch(sent.copy);
      },
    };
  }
}

/** The `code` of an error answer, read from a copy so the caller still gets the body. */
async function errorCode(response: Response): Promise<string | undefined> {
  try {
    return new PersonaApiError(response.status, await response.clone().json()).code;
  } catch {
    return undefined;
  }
}
