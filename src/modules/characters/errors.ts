import type { ErrorTable } from '../../core/errors.js';

/** Error codes of the characters context (contract §2). */
export const CHARACTERS_ERRORS = {
  /** Also thrown by the marketplace when a purchase would pass the plan's character limit. */
  character_limit_reached: 403,
} as const satisfies ErrorTable;

declare module '../../core/errors.js' {
  interface ErrorCodeRegistry {
    characters: typeof CHARACTERS_ERRORS;
  }
}
