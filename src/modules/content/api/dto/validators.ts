import { ValidatorConstraint, type ValidatorConstraintInterface } from 'class-validator';
import { isContentStatus } from '../../domain/content-item.js';
import { parseDate } from '../../domain/schedule-time.js';

export { IsTimestamp, Present, TIMESTAMP_SHAPE, TrimEach } from '../../../../platform/http/index.js';
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
