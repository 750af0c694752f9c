/** The content context's job types. Caption variants are synchronous and have none. */
export const CONTENT_JOBS = {
  image: 'generate_image',
  video: 'generate_video',
  week: 'generate_week',
} as const;

/** Ledger reasons of this context's credit movements. */
export const LEDGER_REASONS = {
  image: 'content_image',
  video: 'content_video',
  week: 'content_week_plan',
  variants: 'caption_variants',
  refund: 'content_refund',
  weekRefund: 'content_week_plan_refund',
} as const;

/** A whole, non-negative number from a job payload field; anything else is 0. */
export function payloadCount(value: unknown): number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : 0;
}
