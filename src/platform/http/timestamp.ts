import { ValidatorConstraint, type ValidatorConstraintInterface } from 'class-validator';

/** An ISO 8601 timestamp with its zone: what every timestamp field of the API takes. */
export const TIMESTAMP_SHAPE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})$/;

@ValidatorConstraint({ name: 'isTimestamp' })
export class IsTimestamp implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' && TIMESTAMP_SHAPE.test(value) && !Number.isNaN(Date.parse(value));
  }
  defaultMessage(): string {
    return '$property must be an ISO 8601 timestamp with a zone, e.g. 2024-07-15T16:00:00Z';
  }
}
