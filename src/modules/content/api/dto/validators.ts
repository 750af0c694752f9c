import { PipeTransform } from '@nestjs/common';
import { ValidateIf, ValidatorConstraint, type ValidatorConstraintInterface } from 'class-validator';
import { Transform } from 'class-transformer';
import { AppError } from '../../../../core/index.js';
import { isContentStatus } from '../../domain/content-item.js';
import { parseDate } from '../../domain/schedule-time.js';

/** Optional, but when present it must be a real value: `null` is refused rather than stored. */
export const Present = () => ValidateIf((_o: object, v: unknown) => v !== undefined);
export const TrimEach = () => Transform(({ value }) => (Array.isArray(value) ? value.map((v) => (typeof v === 'string' ? v.trim() : v)) : value));

export { IsTimestamp, TIMESTAMP_SHAPE } from '../../../../platform/http/index.js';
export const LANGUAGE_SHAPE = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8}){0,3}$/;

@ValidatorConstraint({ name: 'isCalendarDate' })
export class IsCalendarDate implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' && parseDate(value) !== null;
  }
  defaultMessage(): string {
    return '$property must be a date (YYYY-MM-DD)';
  }
}

@ValidatorConstraint({ name: 'isStatusList' })
export class IsStatusList implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    if (typeof value !== 'string') return false;
    const parts = value.split(',').map((s) => s.trim());
    return parts.length > 0 && parts.every(isContentStatus);
  }
  defaultMessage(): string {
    return '$property must be a comma-separated list of: queued, generating, ready, approved, rejected, published, failed';
  }
}

/** A zero-based position in a path (media index, variant index); anything else is a missing one. */
export class IndexParam implements PipeTransform<string, number> {
  constructor(private readonly what: string) {}

  transform(value: string): number {
    if (!/^\d{1,4}$/.test(value)) throw AppError.notFound(this.what);
    return Number(value);
  }
}
