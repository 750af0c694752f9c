import type { ErrorTable } from '../../core/errors.js';

/** Error codes of the MCP context. */
export const MCP_ERRORS = {
  /** GET and DELETE on the stateless MCP endpoint: no event stream to open, no session to end. */
  method_not_allowed: 405,
} as const satisfies ErrorTable;

declare module '../../core/errors.js' {
  interface ErrorCodeRegistry {
    mcp: typeof MCP_ERRORS;
  }
}
