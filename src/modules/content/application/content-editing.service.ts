import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppError, insufficientCredits } from '../../../core/index.js';
import { inTransaction, type Tx } from '../../../platform/database/index.js';
import { BillingFacade } from '../../billing/index.js';
import { CharactersFacade, toCharacterBrief } from '../../characters/index.js';
import { clampText, type ContentItem, type ContentType, type Variant } from '../domain/content-item.js';
import { assertEditable, assertVariantsOpen } from '../domain/content-status.js';
import { variantsCharge } from '../domain/pricing.js';
import { ContentItemRepository, type ContentItemChanges } from '../infrastructure/content-item.repository.js';
import { ContentViews, type ItemView } from './content-views.js';
import { GenerationOrders } from './generation-orders.js';
import { LEDGER_REASONS } from './jobs/job-types.js';
import { CAPTION_STYLES, TextGenerator, callProvider } from '../../generation/index.js';

export interface ContentEdit {
  caption?: string | null;
  hashtags?: string[];
  cta?: string | null;
  imagePrompt?: string;
  platform?: string;
  contentType?: ContentType;
  plannedFor?: Date | null;
}

/** Editing an item's text and plan, and its caption variants. */
@Injectable()
export class ContentEditingService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly items: ContentItemRepository,
    private readonly characters: CharactersFacade,
    private readonly billing: BillingFacade,
    private readonly orders: GenerationOrders,
    private readonly text: TextGenerator,
    private readonly views: ContentViews,
  ) {}

  async update(workspaceId: string, id: string, edit: ContentEdit): Promise<ItemView> {
    const view = await inTransaction(this.ds, async (tx) => {
      const current = await this.load(tx, workspaceId, id, true);
      assertEditable(current.status);
      const changes: ContentItemChanges = Object.fromEntries(Object.entries(edit).filter(([, v]) => v !== undefined));
      changes.updatedAt = new Date();
      await this.items.update(tx, workspaceId, id, changes);
      return this.views.view(workspaceId, { ...current, ...changes }, tx);
    });
    await this.views.announce(workspaceId, view);
    return view;
  }

  async variants(workspaceId: string, id: string): Promise<Variant[]> {
    const item = await this.load(this.ds.manager, workspaceId, id);
    return item.variants;
  }

  /**
   * Writes `count` variants with the text provider, then charges and stores them in one
   * transaction: a provider failure costs nothing, and a short balance is refused before the
   * provider is asked.
   */
  async createVariants(workspaceId: string, id: string, count: number): Promise<Variant[]> {
    const item = await this.load(this.ds.manager, workspaceId, id);
    assertVariantsOpen(item);
    const price = variantsCharge(this.orders.prices);
    await this.assertAffordable(workspaceId, price);
    const styles = CAPTION_STYLES.slice(0, count);
    const character = await this.characters.get(workspaceId, item.characterId);
    const drafts = await callProvider('text', () =>
      this.text.variants({
        character: toCharacterBrief(character), prompt: item.imagePrompt, platform: item.platform,
        contentType: item.contentType, language: item.language ?? undefined, styles: [...styles],
      }),
    );
    if (drafts.length < count) throw new AppError('upstream_failed', `The text provider wrote ${drafts.length} of ${count} variants.`);
    const variants: Variant[] = styles.map((style, index) => ({ index, style, ...clampText(drafts[index]), selected: false }));
    await inTransaction(this.ds, async (tx) => {
      const locked = await this.load(tx, workspaceId, id, true);
      assertVariantsOpen(locked);
      if (price > 0) {
        await this.billing.debit(tx, { workspaceId, amount: price, reason: LEDGER_REASONS.variants, refType: 'content', refId: id });
      }
      await this.items.update(tx, workspaceId, id, { variants, updatedAt: new Date() });
    });
    return variants;
  }

  /** The item takes the chosen variant's caption, hashtags and call to action. */
  async selectVariant(workspaceId: string, id: string, index: number): Promise<{ view: ItemView; variants: Variant[] }> {
    const out = await inTransaction(this.ds, async (tx) => {
      const current = await this.load(tx, workspaceId, id, true);
      assertVariantsOpen(current);
      const chosen = Number.isInteger(index) ? current.variants[index] : undefined;
      if (!chosen) throw AppError.notFound('Variant');
      const variants = current.variants.map((v) => ({ ...v, selected: v.index === chosen.index }));
      const changes: ContentItemChanges = { variants, caption: chosen.caption, hashtags: chosen.hashtags, cta: chosen.cta, updatedAt: new Date() };
      await this.items.update(tx, workspaceId, id, changes);
      return { view: await this.views.view(workspaceId, { ...current, ...changes }, tx), variants };
    });
    await this.views.announce(workspaceId, out.view);
    return out;
  }

  private async assertAffordable(workspaceId: string, price: number): Promise<void> {
    if (price <= 0) return;
    const balance = await this.billing.balance(workspaceId);
    if (balance < price) {
      throw insufficientCredits(price, balance);
    }
  }

  private async load(m: Tx, workspaceId: string, id: string, lock = false): Promise<ContentItem> {
    const item = await this.items.find(m, workspaceId, id, { lock });
    if (!item) throw AppError.notFound('Content');
    return item;
  }
}
