import { Foundation1732200000000 } from './1732200000000-foundation.js';
import { CharacterEmbeddingTime1732200003000 } from './1732200003000-character-embedding-time.js';
import { Content1732300000000 } from './1732300000000-content.js';
import { MotionTransfer1732300001000 } from './1732300001000-motion-transfer.js';
import { Marketplace1732400000000 } from './1732400000000-marketplace.js';
import { Idempotency1732400001000 } from './1732400001000-idempotency.js';
import { Publishing1732500000000 } from './1732500000000-publishing.js';
import { PostRemoteHandle1732500001000 } from './1732500001000-post-remote-handle.js';
import { CalendarPublishedIndex1732512002000 } from './1732512002000-calendar-published-index.js';
import { Lora1732600000000 } from './1732600000000-lora.js';
import { VoiceTalkingHead1732700000000 } from './1732700000000-voice-talking-head.js';
import { SelfHostedRouting1732800000000 } from './1732800000000-selfhosted-routing.js';
import { Teams1732900000000 } from './1732900000000-teams.js';
import { Organisations1732950000000 } from './1732950000000-organisations.js';
import { Branding1733000000000 } from './1733000000000-branding.js';
import { Analytics1733100000000 } from './1733100000000-analytics.js';
import { CustomDomainClaims1733200000000 } from './1733200000000-custom-domain-claims.js';
import { InvitationOutcomes1733210000000 } from './1733210000000-invitation-outcomes.js';
import { ListFilters1733260000000 } from './1733260000000-list-filters.js';
import { OwedFailureHooks1733310000000 } from './1733310000000-owed-failure-hooks.js';
import { Outbox1733400000000 } from './1733400000000-outbox.js';
import { MailMessages1733410000000 } from './1733410000000-mail-messages.js';
import { EmailVerification1733420000000 } from './1733420000000-email-verification.js';
import { PasswordResets1733430000000 } from './1733430000000-password-resets.js';
import { TwoFactor1733440000000 } from './1733440000000-two-factor.js';
import { SessionActivity1733450000000 } from './1733450000000-session-activity.js';
import { DataRights1733460000000 } from './1733460000000-data-rights.js';
import { Billing1733470000000 } from './1733470000000-billing.js';
import { Webhooks1733490000000 } from './1733490000000-webhooks.js';
import { WebhookClaims1733500000000 } from './1733500000000-webhook-claims.js';
import { ConnectionAccounts1733505000000 } from './1733505000000-connection-accounts.js';
import { Engagement1733520000000 } from './1733520000000-engagement.js';
import { Monetization1733530000000 } from './1733530000000-monetization.js';

/** Every migration, in order. TypeORM runs them at start-up and through `npm run migration:run`. */
export const MIGRATIONS = [
  Foundation1732200000000,
  CharacterEmbeddingTime1732200003000,
  Content1732300000000,
  MotionTransfer1732300001000,
  Marketplace1732400000000,
  Idempotency1732400001000,
  Publishing1732500000000,
  PostRemoteHandle1732500001000,
  CalendarPublishedIndex1732512002000,
  Lora1732600000000,
  VoiceTalkingHead1732700000000,
  SelfHostedRouting1732800000000,
  Teams1732900000000,
  Organisations1732950000000,
  Branding1733000000000,
  Analytics1733100000000,
  CustomDomainClaims1733200000000,
  InvitationOutcomes1733210000000,
  ListFilters1733260000000,
  OwedFailureHooks1733310000000,
  Outbox1733400000000,
  MailMessages1733410000000,
  EmailVerification1733420000000,
  PasswordResets1733430000000,
  TwoFactor1733440000000,
  SessionActivity1733450000000,
  DataRights1733460000000,
  Billing1733470000000,
  Webhooks1733490000000,
  WebhookClaims1733500000000,
  ConnectionAccounts1733505000000,
  Engagement1733520000000,
  Monetization1733530000000,
];
