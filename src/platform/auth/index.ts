export * from './access.decorator.js';
export * from './authenticators.js';
export * from './access.guard.js';
