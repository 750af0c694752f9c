import { ANALYTICS_JOB_TYPES } from './modules/analytics/index.js';
import { AUTH_JOB_TYPES } from './modules/auth/index.js';
import { CHARACTERS_JOB_TYPES } from './modules/characters/index.js';
import { CONTENT_JOB_TYPES } from './modules/content/index.js';
import { LORA_JOB_TYPES } from './modules/lora/index.js';
import { MOTION_TRANSFER_JOB_TYPES } from './modules/motion-transfer/index.js';
import { BRANDING_JOB_TYPES } from './modules/organisations/index.js';
import { TALKING_HEAD_JOB_TYPES } from './modules/talking-head/index.js';
import { VOICE_JOB_TYPES } from './modules/voice/index.js';
import type { JobType } from './platform/queue/index.js';

/** Every job type of the service. The handler registry checks at boot that each has exactly one handler. */
export const JOB_TYPES = [...CHARACTERS_JOB_TYPES, ...CONTENT_JOB_TYPES, ...LORA_JOB_TYPES, ...MOTION_TRANSFER_JOB_TYPES, ...VOICE_JOB_TYPES, ...TALKING_HEAD_JOB_TYPES, ...ANALYTICS_JOB_TYPES, ...BRANDING_JOB_TYPES, ...AUTH_JOB_TYPES] as const;

/** Fails to compile, naming the type, when a context declares a job type (`JobPayloads`) that is not listed here. */
type EveryTypeListed<Unlisted extends never> = Unlisted;
type _EveryJobTypeListed = EveryTypeListed<Exclude<JobType, (typeof JOB_TYPES)[number]>>;
