export * from './access.decorator.js';
export * from './authenticators.js';
export { ACCESS_ERRORS } from './errors.js';
export { authenticateToken } from './token-authentication.js';
// AccessGuard is imported by its file, by the app module only: it loads @nestjs/throttler (see
// ../rate-limit/index.ts), which unit specs that reach this index through a controller cannot load.
export * from './board-token.js';
export * from './credential-memory.js';
