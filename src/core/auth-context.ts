import type { Plan } from './plans.js';

export const SCOPES = [
  'characters:read',
  'characters:write',
  'content:generate',
  'content:read',
  'content:publish',
  'credits:read',
] as const;
export type Scope = (typeof SCOPES)[number];

export type Role = 'user' | 'admin';

/** Who is calling: resolved once per request by the global guard. */
export interface Caller {
  kind: 'session' | 'api_key';
  userId: string;
  workspaceId: string;
  role: Role;
  plan: Plan;
  scopes: readonly Scope[];
  sessionId?: string;
  apiKeyId?: string;
}

/** An API key can never do more than the scopes it was given. */
export function isGranted(held: readonly Scope[], needed: readonly Scope[]): boolean {
  return needed.every((s) => held.includes(s));
}

/** API key secrets start with this; access tokens are JWTs. The prefix tells them apart. */
export const API_KEY_PREFIX = 'psk_';
