export * from './rate-limiter.js';
export * from './rate-limit.module.js';
