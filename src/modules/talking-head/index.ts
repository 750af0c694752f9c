/** What other contexts may use from the talking-head context. */
export { TalkingHeadModule } from './talking-head.module.js';
export { TALKING_HEAD_JOB_TYPES } from './application/job-types.js';
export { TALKING_HEAD_ERRORS } from './errors.js';
