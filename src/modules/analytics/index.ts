/** What other contexts may use from the analytics context. */
export { AnalyticsModule } from './analytics.module.js';
export { AnalyticsFacade } from './application/analytics.facade.js';
export { ANALYTICS_JOB_TYPES } from './application/job-types.js';
