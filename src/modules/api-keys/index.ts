export { ApiKeysModule } from './api-keys.module.js';
export type { ApiKeyView } from './application/api-key.view.js';
