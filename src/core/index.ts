export * from './ids.js';
export * from './errors.js';
export * from './plans.js';
export * from './auth-context.js';
export * from './pagination.js';
export * from './platforms.js';
export * from './zoned-time.js';
export * from './process-role.js';
