/** What other contexts may use from the audit log: the facade that records and lists entries. */
export { AuditModule } from './audit.module.js';
export { AuditLog } from './application/audit.facade.js';
export { AUDIT_ACTIONS, type AuditAction, type AuditEntry, type AuditRecord } from './domain/audit-entry.js';
export type { AuditQuery } from './infrastructure/audit.repository.js';
