import type { Scope } from '../../../core/index.js';

/** An API key as its workspace sees it: never the secret, never the hash. */
export interface ApiKeyView {
  id: string;
  name: string;
  prefix: string;
  scopes: Scope[];
  createdAt: Date;
  lastUsedAt: Date | null;
  expiresAt: Date | null;
}

export interface NewApiKey {
  name: string;
  scopes: Scope[];
  expiresAt?: Date;
}

/** The answer to a creation: the only time the secret is seen. */
export interface IssuedApiKey {
  apiKey: ApiKeyView;
  secret: string;
}
