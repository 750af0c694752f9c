export * from './json-logger.js';
export * from './access-log.middleware.js';
export * from './path-redaction.js';
