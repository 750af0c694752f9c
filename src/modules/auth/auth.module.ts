import { Module } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';
import { AppConfig } from '../../config/index.js';
import { BillingModule } from '../billing/index.js';
import { OrganisationsModule } from '../organisations/index.js';
import { AccountDataController } from './api/account-data.controller.js';
import { AuthController } from './api/auth.controller.js';
import { AccessTokens, jwtOptions } from './application/access-tokens.js';
import { AccountsFacade } from './application/accounts.facade.js';
import { AdminAccounts } from './application/admin-accounts.js';
import { AdminBootstrap } from './application/admin-bootstrap.js';
import { AuthService } from './application/auth.service.js';
import { AccountDeletionService } from './application/data-rights/account-deletion.service.js';
import { AccountExportJob } from './application/data-rights/account-export.job.js';
import { AccountExportsService } from './application/data-rights/account-exports.service.js';
import { AccountPurge } from './application/data-rights/account-purge.js';
import { PasswordHasher } from './application/password-hasher.js';
import { PasswordRules } from './application/password-rules.js';
import { SessionCheck } from './application/session-check.js';
import { BoardTokenStrategy, SessionJwtStrategy, SessionRecheckStrategy } from './application/session-strategies.js';
import { SessionsService } from './application/sessions.service.js';
import { SignInAudit } from './application/sign-in-audit.js';
import { AccountsRepository } from './infrastructure/accounts.repository.js';
import { SessionsRepository } from './infrastructure/sessions.repository.js';
import { AuthDataContributor } from './infrastructure/auth-data.contributor.js';
import { DataRightsRepository } from './infrastructure/data-rights.repository.js';
import { CommonPasswords } from './infrastructure/common-passwords.js';

/** Users, workspaces, sessions and refresh tokens; the session strategies the global guard and the socket gateway use. */
@Module({
  imports: [
    BillingModule,
    OrganisationsModule,
    JwtModule.registerAsync({ inject: [AppConfig], useFactory: jwtOptions }),
  ],
  controllers: [AuthController, AccountDataController],
  providers: [
    AccountsRepository,
    SessionsRepository,
    PasswordHasher,
    CommonPasswords,
    PasswordRules,
    AccessTokens,
    SessionsService,
    SignInAudit,
    AuthService,
    AccountsFacade,
    AdminAccounts,
    AdminBootstrap,
    SessionCheck,
    SessionJwtStrategy,
    SessionRecheckStrategy,
    BoardTokenStrategy,
    DataRightsRepository,
    AccountExportsService,
    AccountDeletionService,
    AccountExportJob,
    AccountPurge,
    AuthDataContributor,
  ],
  exports: [AccountsFacade],
})
export class AuthModule {}
