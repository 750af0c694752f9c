export * from './rate-limiter.js';
export { Budgets, hashedKey, type Budget } from './budgets.js';
export type { RateLimitedRequest } from './throttlers.js';
export { COUNTED_CALL_HEADER, CountedCalls } from './counted-calls.js';
// RateLimitModule and RateLimitGuard are imported by their files, by the app module and the access
// guard only: they load @nestjs/throttler, a CommonJS package that requires Nest's ES modules. Node
// (>= 20.19) does that; Jest's module loader does not before Node 24.9, so every unit spec that
// reached them through this index would fail to load.
