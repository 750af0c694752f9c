import type { ErrorTable } from '../../core/errors.js';

/** Error codes of the LoRA context (contract §2, §10). */
export const LORA_ERRORS = {
  insufficient_training_images: 409,
  training_in_progress: 409,
  training_image_limit: 409,
} as const satisfies ErrorTable;

declare module '../../core/errors.js' {
  interface ErrorCodeRegistry {
    lora: typeof LORA_ERRORS;
  }
}
