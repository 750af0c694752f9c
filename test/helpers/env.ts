/** Where e2e servers keep their state: `services` (local PostgreSQL + Redis) or `embedded` (PGlite, in-process queue). */
export type E2eMode = 'services' | 'embedded';

export const E2E_MODE: E2eMode = process.env.E2E_MODE === 'embedded' ? 'embedded' : 'services';
export const PG_ADMIN_URL = process.env.E2E_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const REDIS_URL = process.env.E2E_REDIS_URL ?? 'redis://127.0.0.1:6379';
