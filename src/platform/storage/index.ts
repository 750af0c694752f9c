export * from './storage.types.js';
export * from './storage-keys.js';
export * from './storage.module.js';
export { MediaUrls, PUBLISH_MEDIA_URL_TTL_SECONDS } from './media-urls.js';
export { isStorageUnavailable, storageError } from './storage-errors.js';
