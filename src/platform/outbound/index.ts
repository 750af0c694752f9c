export * from './outbound-error.js';
export * from './retry-policy.js';
export * from './http-request.js';
export { readWebBody, readNodeBody, readNodeSnippet } from './body-limit.js';
export { forbiddenReason, addressRefusal, type AddressPolicy } from './ip-ranges.js';
export * from './safe-download.js';
export * from './safe-fetcher.js';
export * from './outbound.module.js';
