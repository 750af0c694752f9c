/** What other contexts may use from the LoRA context. */
export { LoraModule } from './lora.module.js';
export { LoraFacade } from './application/lora.facade.js';
export { LORA_JOB } from './domain/lora.js';
export { LORA_JOB_TYPES } from './application/job-types.js';
export { LORA_ERRORS } from './errors.js';
