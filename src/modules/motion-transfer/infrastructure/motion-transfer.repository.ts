import { Injectable } from '@nestjs/common';
import { In } from 'typeorm';
import { offsetOf, type Page, type PageRequest } from '../../../core/index.js';
import type { Tx } from '../../../platform/database/index.js';
import { canMove, type MotionTransfer, type MotionTransferStatus } from '../domain/motion-transfer.js';
import { MotionTransferEntity } from './motion-transfer.entity.js';

export type MotionTransferChanges = Partial<Pick<MotionTransfer,
  'sourceKey' | 'videoKey' | 'videoUrl' | 'thumbnailKey' | 'thumbnailUrl' | 'error'>>;

function toMotionTransfer(e: MotionTransferEntity): MotionTransfer {
  return { ...e };
}

/** Motion transfers of one workspace. Every method is scoped by the workspace id. */
@Injectable()
export class MotionTransferRepository {
  async insert(m: Tx, mt: MotionTransfer): Promise<void> {
    await m.getRepository(MotionTransferEntity).insert({ ...mt });
  }

  async find(m: Tx, workspaceId: string, id: string, opts: { lock?: boolean } = {}): Promise<MotionTransfer | null> {
    const found = await m.getRepository(MotionTransferEntity).findOne({
      where: { id, workspaceId },
      ...(opts.lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
    return found ? toMotionTransfer(found) : null;
  }

  async findByJob(m: Tx, workspaceId: string, jobId: string): Promise<MotionTransfer | null> {
    const found = await m.getRepository(MotionTransferEntity).findOne({ where: { jobId, workspaceId } });
    return found ? toMotionTransfer(found) : null;
  }

  /** A character's transfers, newest first. */
  async list(m: Tx, workspaceId: string, characterId: string, req: PageRequest): Promise<Page<MotionTransfer>> {
    const [rows, total] = await m.getRepository(MotionTransferEntity).findAndCount({
      where: { workspaceId, characterId },
      order: { createdAt: 'DESC', id: 'DESC' },
      skip: offsetOf(req),
      take: req.pageSize,
    });
    return { items: rows.map(toMotionTransfer), page: req.page, pageSize: req.pageSize, total };
  }

  /**
   * Moves a transfer to `to` only while it is in one of `from` (a conditional update, so a
   * re-delivered job cannot move it twice); answers the row as it is afterwards, or null when
   * it was not in `from`.
   */
  async move(m: Tx, workspaceId: string, id: string, from: MotionTransferStatus[], to: MotionTransferStatus, changes: MotionTransferChanges = {}): Promise<MotionTransfer | null> {
    // The state machine is the domain's; asking for a move it forbids is a bug in the caller.
    if (!from.every((f) => canMove(f, to))) throw new Error(`motion transfer cannot move from ${from.join('|')} to ${to}`);
    const res = await m.getRepository(MotionTransferEntity).update(
      { id, workspaceId, status: In(from) },
      { ...changes, status: to, updatedAt: new Date() },
    );
    if (!res.affected) return null;
    return this.find(m, workspaceId, id);
  }

  /** Records where the downloaded driving video was stored; only while the transfer is unfinished. */
  /** The storage keys of every motion transfer of a character. */
  async fileKeysOfCharacter(m: Tx, workspaceId: string, characterId: string): Promise<string[]> {
    const rows: Array<{ source_key: string | null; video_key: string | null; thumbnail_key: string | null }> = await m.query(
      'SELECT source_key, video_key, thumbnail_key FROM motion_transfers WHERE workspace_id = $1 AND character_id = $2',
      [workspaceId, characterId],
    );
    return rows.flatMap((r) => [r.source_key, r.video_key, r.thumbnail_key].filter((k): k is string => !!k));
  }

  async saveSource(m: Tx, workspaceId: string, id: string, sourceKey: string): Promise<void> {
    await m.getRepository(MotionTransferEntity).update(
      { id, workspaceId, status: In(['queued', 'processing']) },
      { sourceKey, updatedAt: new Date() },
    );
  }
}
