import { Injectable } from '@nestjs/common';
import type { Tx } from '../../../platform/database/index.js';
import type { AuditAction, AuditEntry } from '../domain/audit-entry.js';

interface AuditRow {
  id: string;
  workspace_id: string;
  actor_user_id: string | null;
  actor_email: string | null;
  action: AuditAction;
  target_type: string;
  target_id: string | null;
  details: Record<string, unknown>;
  request_id: string | null;
  created_at: Date;
}

function toEntry(r: AuditRow): AuditEntry {
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    actorUserId: r.actor_user_id,
    actorEmail: r.actor_email,
    action: r.action,
    targetType: r.target_type,
    targetId: r.target_id,
    details: r.details,
    requestId: r.request_id,
    createdAt: r.created_at,
  };
}

export interface AuditQuery {
  limit: number;
  /** An entry id: only entries older than it (the next page). */
  before?: string;
  action?: AuditAction;
  actorId?: string;
}

/** The audit log: appended to, read by workspace, never changed. */
@Injectable()
export class AuditRepository {
  async append(m: Tx, e: Omit<AuditEntry, 'actorEmail' | 'createdAt'>): Promise<void> {
    // The actor's email is copied as it is now: the entry keeps it after the user changes or leaves.
    await m.query(
      `INSERT INTO audit_log (id, workspace_id, actor_user_id, actor_email, action, target_type, target_id, details, request_id)
       VALUES ($1, $2, $3, (SELECT email FROM users WHERE id = $3), $4, $5, $6, $7, $8)`,
      [e.id, e.workspaceId, e.actorUserId, e.action, e.targetType, e.targetId, JSON.stringify(e.details), e.requestId],
    );
  }

  async list(m: Tx, workspaceId: string, q: AuditQuery): Promise<AuditEntry[]> {
    const where = ['workspace_id = $1'];
    const params: unknown[] = [workspaceId];
    if (q.before) {
      params.push(q.before);
      // Newest first by (created_at, id); an unknown cursor id in this workspace yields nothing.
      where.push(`(created_at, id) < (SELECT created_at, id FROM audit_log WHERE workspace_id = $1 AND id = $${params.length})`);
    }
    if (q.action) {
      params.push(q.action);
      where.push(`action = $${params.length}`);
    }
    if (q.actorId) {
      params.push(q.actorId);
      where.push(`actor_user_id = $${params.length}`);
    }
    params.push(q.limit);
    const rows: AuditRow[] = await m.query(
      `SELECT * FROM audit_log WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
      params,
    );
    return rows.map(toEntry);
  }
}
