export { AuthModule } from './auth.module.js';
export { AccountsFacade } from './application/accounts.facade.js';
export { AdminAccounts, type AdminOutcome } from './application/admin-accounts.js';
export type { User, Workspace, WorkspaceWithOwner } from './domain/accounts.js';
export { userBody, workspaceBody, WorkspaceView } from './api/dto/account.views.js';
export { AUTH_ERRORS } from './errors.js';
export { AUTH_JOB_TYPES } from './application/data-rights/job-types.js';
