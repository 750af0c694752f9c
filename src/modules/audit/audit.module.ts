import { Global, Module } from '@nestjs/common';
import { AuditLog } from './application/audit.facade.js';
import { AuditRepository } from './infrastructure/audit.repository.js';

/** The audit log (contract §14); global, since most contexts record their changes in it. */
@Global()
@Module({ providers: [AuditRepository, AuditLog], exports: [AuditLog] })
export class AuditModule {}
