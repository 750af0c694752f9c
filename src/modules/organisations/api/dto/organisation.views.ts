import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { BrandingBody } from '../../branding/index.js';
import { PLANS, WORKSPACE_ROLES } from '../../../../core/index.js';
import { AUDIT_ACTIONS, type AuditEntry } from '../../../audit/index.js';
import type { Invitation, ReceivedInvitation } from '../../domain/invitation.js';
import type { Member, Organisation } from '../../domain/organisation.js';

/** Wire shapes of organisations (contract §14). */
export function organisationBody(o: Organisation) {
  return { id: o.id, name: o.name, slug: o.slug, plan: o.plan, require_mfa: o.requireMfa, role: o.role, created_at: o.createdAt.toISOString() };
}

export function memberBody(m: Member) {
  return { user_id: m.userId, email: m.email, display_name: m.displayName, role: m.role, joined_at: m.joinedAt.toISOString() };
}

export function invitationBody(i: Invitation) {
  return { id: i.id, email: i.email, role: i.role, expires_at: i.expiresAt.toISOString() };
}

export function receivedInvitationBody(r: ReceivedInvitation) {
  const i = r.invitation;
  return {
    id: i.id,
    organization: { id: i.workspaceId, name: r.organisationName },
    role: i.role,
    invited_by: r.inviter ? { email: r.inviter.email, display_name: r.inviter.displayName } : null,
    expires_at: i.expiresAt.toISOString(),
    created_at: i.createdAt.toISOString(),
  };
}

export function auditEntryBody(e: AuditEntry) {
  return {
    id: e.id,
    actor_user_id: e.actorUserId,
    actor_email: e.actorEmail,
    action: e.action,
    target_type: e.targetType,
    target_id: e.targetId,
    details: e.details,
    request_id: e.requestId,
    created_at: e.createdAt.toISOString(),
  };
}

export class OrganisationView {
  @ApiProperty({ example: 'ws_01J0000000000000000000000' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ type: String, nullable: true }) slug!: string | null;
  @ApiProperty({ enum: PLANS }) plan!: string;
  @ApiProperty({ description: 'Members must have two-factor sign-in on to use it (set by an owner).' }) require_mfa!: boolean;
  @ApiProperty({ enum: WORKSPACE_ROLES, description: 'Your role in it.' }) role!: string;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

export class OrganisationBody {
  @ApiProperty({ type: OrganisationView }) organization!: OrganisationView;
}

export class OrganisationUpdatedBody extends OrganisationBody {
  @ApiPropertyOptional({ type: BrandingBody, description: 'When the change carried branding.' }) branding?: BrandingBody;
}

export class OrganisationListBody {
  @ApiProperty({ type: [OrganisationView] }) organizations!: OrganisationView[];
  @ApiProperty({ type: 'integer' }) page!: number;
  @ApiProperty({ type: 'integer' }) page_size!: number;
  @ApiProperty({ type: 'integer' }) total!: number;
}

export class MemberView {
  @ApiProperty() user_id!: string;
  @ApiProperty() email!: string;
  @ApiProperty() display_name!: string;
  @ApiProperty({ enum: WORKSPACE_ROLES }) role!: string;
  @ApiProperty({ format: 'date-time' }) joined_at!: string;
}

export class InvitationView {
  @ApiProperty({ example: 'inv_01J0000000000000000000000' }) id!: string;
  @ApiProperty() email!: string;
  @ApiProperty({ enum: WORKSPACE_ROLES }) role!: string;
  @ApiProperty({ format: 'date-time' }) expires_at!: string;
}

export class CreatedInvitationView extends InvitationView {
  @ApiProperty({ description: 'Shown in this answer only; send it to the invitee.' }) token!: string;
}

export class MemberListBody {
  @ApiProperty({ type: [MemberView] }) members!: MemberView[];
  @ApiProperty({ type: 'integer' }) page!: number;
  @ApiProperty({ type: 'integer' }) page_size!: number;
  @ApiProperty({ type: 'integer', description: 'Members in all.' }) total!: number;
  @ApiPropertyOptional({ type: [InvitationView], description: 'Pending invitations, all of them (at most the plan\'s member limit); admins and owners only.' }) invitations?: InvitationView[];
}

export class MemberBody {
  @ApiProperty({ type: MemberView }) member!: MemberView;
}

export class InvitedBody {
  @ApiProperty({ type: CreatedInvitationView, description: 'The same shape whether or not the email has an account.' }) invitation!: CreatedInvitationView;
}

export class InvitingOrganisationView {
  @ApiProperty({ example: 'ws_01J0000000000000000000000' }) id!: string;
  @ApiProperty() name!: string;
}

export class InviterView {
  @ApiProperty() email!: string;
  @ApiProperty() display_name!: string;
}

export class ReceivedInvitationView {
  @ApiProperty({ example: 'inv_01J0000000000000000000000', description: 'Accept or decline by this id.' }) id!: string;
  @ApiProperty({ type: InvitingOrganisationView }) organization!: InvitingOrganisationView;
  @ApiProperty({ enum: WORKSPACE_ROLES, description: 'Your role once you accept.' }) role!: string;
  @ApiProperty({ type: InviterView, nullable: true, description: 'Null when the inviter has since deleted their account.' }) invited_by!: InviterView | null;
  @ApiProperty({ format: 'date-time' }) expires_at!: string;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

export class ReceivedInvitationListBody {
  @ApiProperty({ type: [ReceivedInvitationView] }) invitations!: ReceivedInvitationView[];
  @ApiProperty({ type: 'integer' }) page!: number;
  @ApiProperty({ type: 'integer' }) page_size!: number;
  @ApiProperty({ type: 'integer' }) total!: number;
}

export class AuditEntryView {
  @ApiProperty() id!: string;
  @ApiProperty({ type: String, nullable: true }) actor_user_id!: string | null;
  @ApiProperty({ type: String, nullable: true }) actor_email!: string | null;
  @ApiProperty({ enum: AUDIT_ACTIONS }) action!: string;
  @ApiProperty() target_type!: string;
  @ApiProperty({ type: String, nullable: true }) target_id!: string | null;
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'Facts of the action, by name.' }) details!: Record<string, unknown>;
  @ApiProperty({ type: String, nullable: true }) request_id!: string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

export class AuditLogBody {
  @ApiProperty({ type: [AuditEntryView] }) entries!: AuditEntryView[];
  @ApiProperty({ type: String, nullable: true, description: 'Pass as `before` for the next page; null on the last.' }) next_before!: string | null;
}
