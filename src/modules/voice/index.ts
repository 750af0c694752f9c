/** What other contexts may use from the voice context. */
export { VoiceModule } from './voice.module.js';
export { VoiceFacade } from './application/voice.facade.js';
export { VOICE_JOB_TYPES } from './application/job-types.js';
