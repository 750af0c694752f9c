import { Injectable, OnModuleInit } from '@nestjs/common';
import type { OutboxEvent, WorkspaceRole } from '../../../core/index.js';
import { OutboxEventBodies, type EventBody, type EventBodyRenderer } from '../../../platform/outbox/index.js';
import { MembersService } from '../application/members.service.js';
import { memberBody } from './dto/organisation.views.js';

/**
 * The body of `member.added` and `member.removed`: a member as GET /organizations/{id}/members
 * lists it. An added member is read when the event is sent (null once they left); a removed one
 * is the member as they were, kept in the event since the membership is gone.
 */
@Injectable()
export class MemberEventBodies implements EventBodyRenderer, OnModuleInit {
  readonly types = ['member.added', 'member.removed'] as const;

  constructor(
    private readonly bodies: OutboxEventBodies,
    private readonly members: MembersService,
  ) {}

  onModuleInit(): void {
    this.bodies.register(this);
  }

  async render(event: OutboxEvent): Promise<EventBody | null> {
    if (!event.workspaceId) return null;
    if (event.type === 'member.added') {
      const member = await this.members.member(event.workspaceId, event.payload.userId);
      return member ? memberBody(member) : null;
    }
    if (event.type === 'member.removed') {
      const p = event.payload;
      return memberBody({ userId: p.userId, email: p.email, displayName: p.displayName, role: p.role as WorkspaceRole, joinedAt: new Date(p.joinedAt) });
    }
    return null;
  }
}
