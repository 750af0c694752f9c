import { CORE_ERRORS, type ErrorTables, type SharedCodes } from './core/index.js';
import { AUTH_ERRORS } from './modules/auth/index.js';
import { BILLING_ERRORS } from './modules/billing/index.js';
import { CHARACTERS_ERRORS } from './modules/characters/index.js';
import { CONTENT_ERRORS } from './modules/content/index.js';
import { LORA_ERRORS } from './modules/lora/index.js';
import { MARKETPLACE_ERRORS } from './modules/marketplace/index.js';
import { MCP_ERRORS } from './modules/mcp/index.js';
import { MONETIZATION_ERRORS } from './modules/monetization/index.js';
import { BRANDING_ERRORS, ORGANISATIONS_ERRORS } from './modules/organisations/index.js';
import { PUBLISHING_ERRORS } from './modules/publishing/index.js';
import { TALKING_HEAD_ERRORS } from './modules/talking-head/index.js';
import { WEBHOOKS_ERRORS } from './modules/webhooks/index.js';
import { ACCESS_ERRORS } from './platform/auth/index.js';
import { mergeErrorTables, type ErrorStatusMap } from './platform/http/index.js';
import { IDEMPOTENCY_ERRORS } from './platform/idempotency/index.js';

/**
 * Every registered error table. `satisfies ErrorTables` makes a table registered in
 * `ErrorCodeRegistry` but missing here (or here but unregistered) a compile error.
 */
const ERROR_TABLES = {
  core: CORE_ERRORS,
  access: ACCESS_ERRORS,
  idempotency: IDEMPOTENCY_ERRORS,
  auth: AUTH_ERRORS,
  billing: BILLING_ERRORS,
  characters: CHARACTERS_ERRORS,
  content: CONTENT_ERRORS,
  lora: LORA_ERRORS,
  marketplace: MARKETPLACE_ERRORS,
  organisations: ORGANISATIONS_ERRORS,
  publishing: PUBLISHING_ERRORS,
  talkingHead: TALKING_HEAD_ERRORS,
  branding: BRANDING_ERRORS,
  webhooks: WEBHOOKS_ERRORS,
  mcp: MCP_ERRORS,
  monetization: MONETIZATION_ERRORS,
} as const satisfies ErrorTables;

/** Fails to compile, naming the code, when two registered tables declare the same code. */
type NoCode<DeclaredTwice extends never> = DeclaredTwice;
type _NoCodeDeclaredTwice = NoCode<SharedCodes<ErrorTables>>;

/** The one exhaustive code → HTTP status map; loading it throws if two tables share a code. */
export const ERROR_STATUS: ErrorStatusMap = mergeErrorTables(ERROR_TABLES);
