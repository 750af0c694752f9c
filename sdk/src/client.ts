import createClient, { type Client } from 'openapi-fetch';
import { PersonaApiError } from './errors.js';
import type { paths } from './generated/schema.js';
import { SessionAuth, type FetchLike, type SessionOptions, type SessionTokens } from './session-auth.js';

/** Where every route lives, below the server's origin (the document's `servers`). */
export const API_PREFIX = '/api/v1';

export type PersonaClientOptions =
  /** An Agency API key (`psk_…`): reaches the `/public/*` routes its scopes allow. */
  | { baseUrl: string; apiKey: string }
  /** A signed-in user's session: reaches the product routes; refreshed when its access token expires. */
  | { baseUrl: string; session: SessionOptions }
  /** No credentials: the open routes (register, verify an email, reset a password, health). */
  | { baseUrl: string };

/** How a client authenticates, for helpers that pick routes or open the socket with it. */
export interface PersonaAuth {
  readonly mode: 'apiKey' | 'session' | 'anonymous';
  /** The API's URL, `<origin>/api/v1`. */
  readonly apiUrl: string;
  /** The credential to send now: the API key, or the session's current access token (none when anonymous). */
  credential(): string | undefined;
  /** The session's current pair (after refreshes); undefined for an API key. */
  tokens(): SessionTokens | undefined;
}

/** The typed openapi-fetch client of every route (`client.GET('/public/credits')`), with its auth. */
export type PersonaClient = Client<paths> & { readonly auth: PersonaAuth };

/** `https://host` or `https://host/api/v1` (with or without a trailing slash) → `https://host/api/v1`. */
export function apiUrlOf(baseUrl: string): string {
  const trimmed = baseUrl.replace(/\/+$/, '');
  return trimmed.endsWith(API_PREFIX) ? trimmed : `${trimmed}${API_PREFIX}`;
}

const defaultFetch: FetchLike = (request) => globalThis.fetch(request);

/** A client for the API with an API key, a session or neither (see PersonaClientOptions). */
export function createPersonaClient(options: PersonaClientOptions, fetch: FetchLike = defaultFetch): PersonaClient {
  const apiUrl = apiUrlOf(options.baseUrl);
  const client = createClient<paths>({ baseUrl: apiUrl, fetch });
  let auth: PersonaAuth;
  if ('apiKey' in options) {
    const key = options.apiKey;
    client.use({
      onRequest: ({ request }) => {
        request.headers.set('Authorization', `Bearer ${key}`);
        return request;
      },
    });
    auth = { mode: 'apiKey', apiUrl, credential: () => key, tokens: () => undefined };
  } else if ('session' in options) {
    const session = new SessionAuth(apiUrl, options.session, fetch);
    client.use(session.middleware());
    auth = { mode: 'session', apiUrl, credential: () => session.current().accessToken, tokens: () => session.current() };
  } else {
    auth = { mode: 'anonymous', apiUrl, credential: () => undefined, tokens: () => undefined };
  }
  return Object.assign(client, { auth });
}

/** `POST /auth/login` answered a two-factor challenge: finish with `POST /auth/mfa/verify`. */
export class MfaRequiredError extends Error {
  override name = 'MfaRequiredError';
  constructor(
    readonly mfaToken: string,
    readonly expiresIn: number,
  ) {
    super('This account uses two-factor authentication: verify a code with POST /auth/mfa/verify.');
  }
}

export interface LoginOptions {
  onTokens?: SessionOptions['onTokens'];
  fetch?: FetchLike;
}

/**
 * Signs in with email and password and answers a session client. Wrong credentials throw a
 * PersonaApiError (`invalid_credentials`); an account with two-factor sign-in, MfaRequiredError.
 */
export async function login(baseUrl: string, email: string, password: string, options: LoginOptions = {}): Promise<PersonaClient> {
  const fetch = options.fetch ?? defaultFetch;
  const anonymous = createClient<paths>({ baseUrl: apiUrlOf(baseUrl), fetch });
  const { data, error, response } = await anonymous.POST('/auth/login', { body: { email, password } });
  if (!data) throw new PersonaApiError(response.status, error);
  if ('mfa_required' in data) throw new MfaRequiredError(data.mfa_token, data.expires_in);
  const session = { accessToken: data.access_token, refreshToken: data.refresh_token, onTokens: options.onTokens };
  await options.onTokens?.({ accessToken: session.accessToken, refreshToken: session.refreshToken });
  return createPersonaClient({ baseUrl, session }, fetch);
}
