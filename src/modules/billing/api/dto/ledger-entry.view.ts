import { ApiProperty } from '@nestjs/swagger';
import type { LedgerEntry } from '../../domain/credits.js';

/** The wire shape of a ledger entry (contract §3). */
export function ledgerEntryBody(e: LedgerEntry) {
  return {
    id: e.id,
    amount: e.amount,
    balance_after: e.balanceAfter,
    reason: e.reason,
    ref_type: e.refType,
    ref_id: e.refId,
    created_at: e.createdAt.toISOString(),
  };
}

export class LedgerEntryView {
  @ApiProperty({ example: 'led_01J0000000000000000000000' }) id!: string;
  @ApiProperty({ description: 'Positive for grants and refunds, negative for debits.' }) amount!: number;
  @ApiProperty({ type: 'integer' }) balance_after!: number;
  @ApiProperty({ example: 'allocation_granted', description: 'Debits name the work (content_image, lora_training, ...); grants: allocation_granted, allocation_expired, pack_purchased, refunds.' }) reason!: string;
  @ApiProperty({ nullable: true, type: String }) ref_type!: string | null;
  @ApiProperty({ nullable: true, type: String }) ref_id!: string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

export class LedgerPageView {
  @ApiProperty({ type: [LedgerEntryView] }) entries!: LedgerEntryView[];
  @ApiProperty({ type: 'integer' }) page!: number;
  @ApiProperty({ type: 'integer' }) page_size!: number;
  @ApiProperty({ type: 'integer' }) total!: number;
}

export class CreditsView {
  @ApiProperty({ type: 'integer' }) balance!: number;
  @ApiProperty({ enum: ['starter', 'pro', 'agency'] }) plan!: string;
  @ApiProperty({ type: 'integer', required: false, description: 'Product route only.' }) character_limit?: number;
}
