import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, IsString, Length, Max, MaxLength, Min, NotEquals } from 'class-validator';
import { PLANS, type Plan } from '../../../../core/index.js';
import { PageQueryDto, Trim } from '../../../../platform/http/index.js';
import { WorkspaceView } from '../../../auth/index.js';
import { LedgerEntryView } from '../../../billing/index.js';

export class WorkspaceSearchQuery extends PageQueryDto {
  @ApiPropertyOptional({ description: "Text contained in an owner's email (case-insensitive); owners are read from the memberships." })
  @IsOptional()
  @Trim()
  @IsString()
  @MaxLength(254)
  email?: string;
}

export class SetPlanDto {
  @ApiProperty({ enum: PLANS })
  @IsIn(PLANS)
  plan!: Plan;
}

export const MAX_ADJUSTMENT = 1_000_000;

export class AdjustCreditsDto {
  @ApiProperty({ description: 'Credits to add; negative to take. Never zero.', minimum: -MAX_ADJUSTMENT, maximum: MAX_ADJUSTMENT })
  @IsInt()
  @NotEquals(0, { message: 'amount must not be zero' })
  @Min(-MAX_ADJUSTMENT)
  @Max(MAX_ADJUSTMENT)
  amount!: number;

  @ApiProperty({ minLength: 1, maxLength: 200, example: 'Goodwill for the outage' })
  @Trim()
  @IsString()
  @Length(1, 200)
  reason!: string;
}

export class AdminWorkspaceView extends WorkspaceView {
  @ApiProperty({ type: String, nullable: true, description: 'An owner\'s email: the longest-standing owner, or the one the email filter matched.' }) owner_email!: string | null;
}

export class AdminWorkspacePage {
  @ApiProperty({ type: [AdminWorkspaceView] }) workspaces!: AdminWorkspaceView[];
  @ApiProperty({ type: 'integer' }) page!: number;
  @ApiProperty({ type: 'integer' }) page_size!: number;
  @ApiProperty({ type: 'integer' }) total!: number;
}

export class WorkspaceEnvelope {
  @ApiProperty({ type: WorkspaceView }) workspace!: WorkspaceView;
}

export class CreditAdjustmentView extends WorkspaceEnvelope {
  @ApiProperty({ type: LedgerEntryView }) entry!: LedgerEntryView;
}
