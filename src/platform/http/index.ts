export * from './exception.filter.js';
export * from './request-id.middleware.js';
export * from './validation.js';
export * from './params.js';
export * from './dto.js';
export * from './api-docs.js';
export * from './timestamp.js';
export * from './error-status.js';
