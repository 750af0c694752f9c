/** What other contexts may use from the motion-transfer context. */
export { MotionTransferModule } from './motion-transfer.module.js';
export { MOTION_TRANSFER_JOB } from './domain/motion-transfer.js';
export { MOTION_TRANSFER_JOB_TYPES } from './application/job-types.js';
