export * from './storage.types.js';
export * from './storage-keys.js';
export * from './storage.module.js';
