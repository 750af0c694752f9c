import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, Length } from 'class-validator';
import { PASSWORD_MAX_LENGTH } from '../../domain/password-policy.js';
import type { ExportView } from '../../application/data-rights/account-exports.service.js';
import type { ScheduledDeletion } from '../../application/data-rights/account-deletion.service.js';

/** The export takes no options: an empty body (unknown fields are refused). */
export class RequestExportDto {}

export class DeleteAccountDto {
  @ApiProperty({ description: 'The account’s current password.', maxLength: PASSWORD_MAX_LENGTH })
  @IsString()
  @Length(1, PASSWORD_MAX_LENGTH)
  password!: string;
}

export function exportBody(v: ExportView) {
  return {
    export: {
      id: v.export.id,
      status: v.status,
      created_at: v.export.createdAt.toISOString(),
      ready_at: v.export.readyAt?.toISOString() ?? null,
      expires_at: v.export.expiresAt?.toISOString() ?? null,
      size_bytes: v.export.sizeBytes,
      download_url: v.downloadUrl,
    },
  };
}

export function deletionBody(d: ScheduledDeletion) {
  return {
    deletion: {
      purge_at: d.purgeAt.toISOString(),
      workspaces_deleted: d.deleteWorkspaces,
      workspaces_left: d.leaveWorkspaces,
    },
  };
}

class ExportItemView {
  @ApiProperty({ example: 'exp_01J0000000000000000000000' }) id!: string;
  @ApiProperty({ enum: ['pending', 'ready', 'failed'] }) status!: string;
  @ApiProperty() created_at!: string;
  @ApiPropertyOptional({ nullable: true, type: String }) ready_at!: string | null;
  @ApiPropertyOptional({ nullable: true, type: String, description: 'The download stops working then (24 h after ready).' }) expires_at!: string | null;
  @ApiPropertyOptional({ nullable: true, type: 'integer' }) size_bytes!: number | null;
  @ApiPropertyOptional({ nullable: true, type: String, description: 'A signed URL of the ZIP while ready; whoever holds it can download it.' })
  download_url!: string | null;
}

export class ExportResponseView {
  @ApiProperty({ type: ExportItemView }) export!: ExportItemView;
}

class DeletionItemView {
  @ApiProperty({ description: 'When the account and the workspaces it alone is in are erased, unless you sign in before.' }) purge_at!: string;
  @ApiProperty({ type: [String] }) workspaces_deleted!: string[];
  @ApiProperty({ type: [String], description: 'Shared workspaces the account leaves at the purge.' }) workspaces_left!: string[];
}

export class DeletionView {
  @ApiProperty({ type: DeletionItemView }) deletion!: DeletionItemView;
}
