import { Global, Module } from '@nestjs/common';
import { AuditLog } from './application/audit.facade.js';
import { AuditRepository } from './infrastructure/audit.repository.js';
import { AuditDataContributor } from './infrastructure/audit-data.contributor.js';

/** The audit log (contract §14); global, since most contexts record their changes in it. */
@Global()
@Module({ providers: [AuditDataContributor, AuditRepository, AuditLog], exports: [AuditLog] })
export class AuditModule {}
