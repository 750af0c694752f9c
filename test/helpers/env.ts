import { describe } from '@jest/globals';

/** Where e2e servers keep their state: `services` (local PostgreSQL + Redis) or `embedded` (PGlite, in-process queue). */
export type E2eMode = 'services' | 'embedded';

export const E2E_MODE: E2eMode = process.env.E2E_MODE === 'embedded' ? 'embedded' : 'services';
export const PG_ADMIN_URL = process.env.E2E_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const REDIS_URL = process.env.E2E_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * A describe block that makes its own PostgreSQL + Redis backing whatever E2E_MODE says (several
 * workers, direct SQL, Redis-held limits). It is registered on the services pass only: the embedded
 * pass would run the very same processes against the very same stores a second time. A file made only
 * of such blocks says `@e2e services-only` instead, and the embedded pass leaves it out.
 */
export function describeOnServices(name: string, fn: () => void): void {
  if (E2E_MODE === 'services') describe(name, fn);
}
