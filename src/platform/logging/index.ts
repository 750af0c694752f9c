export * from './json-logger.js';
export * from './access-log.middleware.js';
