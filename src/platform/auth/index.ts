export * from './access.decorator.js';
export * from './authenticators.js';
export * from './access.guard.js';
export { ACCESS_ERRORS } from './errors.js';
