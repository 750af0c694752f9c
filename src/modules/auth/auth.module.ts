import { Module } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';
import { AppConfig } from '../../config/index.js';
import { BillingModule } from '../billing/index.js';
import { OrganisationsModule } from '../organisations/index.js';
import { AccountDataController } from './api/account-data.controller.js';
import { AuthController } from './api/auth.controller.js';
import { EmailController } from './api/email.controller.js';
import { PasswordController } from './api/password.controller.js';
import { TwoFactorController } from './api/two-factor.controller.js';
import { SessionsController } from './api/sessions.controller.js';
import { AccessTokens, jwtOptions } from './application/access-tokens.js';
import { AccountsFacade } from './application/accounts.facade.js';
import { AdminAccounts } from './application/admin-accounts.js';
import { AdminBootstrap } from './application/admin-bootstrap.js';
import { AuthService } from './application/auth.service.js';
import { EmailChangeService } from './application/email-change.service.js';
import { EmailVerificationService } from './application/email-verification.service.js';
import { NewPassword } from './application/new-password.js';
import { PasswordChangeService } from './application/password-change.service.js';
import { AccountDeletionService } from './application/data-rights/account-deletion.service.js';
import { AccountExportJob } from './application/data-rights/account-export.job.js';
import { AccountExportsService } from './application/data-rights/account-exports.service.js';
import { AccountPurge } from './application/data-rights/account-purge.js';
import { PasswordHasher } from './application/password-hasher.js';
import { PasswordResetService } from './application/password-reset.service.js';
import { PasswordRules } from './application/password-rules.js';
import { SessionCheck } from './application/session-check.js';
import { BoardTokenStrategy, SessionJwtStrategy, SessionRecheckStrategy } from './application/session-strategies.js';
import { SessionsService } from './application/sessions.service.js';
import { SignInAudit } from './application/sign-in-audit.js';
import { MfaChallenges } from './application/mfa-challenges.js';
import { MfaSignIn } from './application/mfa-sign-in.js';
import { SecondFactor } from './application/second-factor.js';
import { TwoFactorService } from './application/two-factor.service.js';
import { TwoFactorRepository } from './infrastructure/two-factor.repository.js';
import { NewDeviceAlerts } from './application/new-device-alerts.js';
import { UserSessionsService } from './application/user-sessions.service.js';
import { AccountsRepository } from './infrastructure/accounts.repository.js';
import { SessionsRepository } from './infrastructure/sessions.repository.js';
import { EmailTokensRepository } from './infrastructure/email-tokens.repository.js';
import { AuthDataContributor } from './infrastructure/auth-data.contributor.js';
import { DataRightsRepository } from './infrastructure/data-rights.repository.js';
import { CommonPasswords } from './infrastructure/common-passwords.js';
import { PasswordsRepository } from './infrastructure/passwords.repository.js';

/** Users, workspaces, sessions and refresh tokens; the session strategies the global guard and the socket gateway use. */
@Module({
  imports: [
    BillingModule,
    OrganisationsModule,
    JwtModule.registerAsync({ inject: [AppConfig], useFactory: jwtOptions }),
  ],
  controllers: [AuthController, EmailController, PasswordController, TwoFactorController, SessionsController, AccountDataController],
  providers: [
    AccountsRepository,
    SessionsRepository,
    PasswordHasher,
    CommonPasswords,
    PasswordRules,
    AccessTokens,
    SessionsService,
    SignInAudit,
    NewDeviceAlerts,
    UserSessionsService,
    AuthService,
    AccountsFacade,
    AdminAccounts,
    AdminBootstrap,
    SessionCheck,
    SessionJwtStrategy,
    SessionRecheckStrategy,
    BoardTokenStrategy,
    EmailTokensRepository,
    EmailVerificationService,
    EmailChangeService,
    PasswordsRepository,
    NewPassword,
    PasswordResetService,
    PasswordChangeService,
    TwoFactorRepository,
    SecondFactor,
    MfaChallenges,
    MfaSignIn,
    TwoFactorService,
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
