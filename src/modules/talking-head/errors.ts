import type { ErrorTable } from '../../core/errors.js';

/** Error codes of the talking-head context (contract §2, §12). */
export const TALKING_HEAD_ERRORS = {
  reference_image_required: 409,
} as const satisfies ErrorTable;

declare module '../../core/errors.js' {
  interface ErrorCodeRegistry {
    talkingHead: typeof TALKING_HEAD_ERRORS;
  }
}
