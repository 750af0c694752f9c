import { ValidationPipe, type ArgumentMetadata, type ValidationError } from '@nestjs/common';
import { AppError } from '../../core/index.js';
import { assertNoControlCharacters } from './input-guard.js';
import { rememberValidationRules } from './validation-rules.js';

export interface FieldProblem {
  field: string;
  message: string;
}

/**
 * Constraints that say what kind of value a field takes. When one of them fails, it is the message
 * worth reading: "niche must be a string" before "niche must be shorter than 80 characters".
 */
const KIND_CONSTRAINTS = new Set([
  'whitelistValidation', 'nestedValidation', 'isDefined',
  'isString', 'isNumber', 'isInt', 'isBoolean', 'isArray', 'isObject', 'isIn', 'isEnum',
  'isDateString', 'isISO8601', 'isUUID', 'isEmail', 'isUrl',
]);

/** The one most useful message for a field that failed `constraints` with `value`. */
function bestMessage(field: string, value: unknown, constraints: Record<string, string>): string {
  // A missing field fails every rule at once; what it lacks is being there, and the value it must
  // have when only one will do (accept_terms: "is required and must be true").
  if (value === undefined && !('whitelistValidation' in constraints)) {
    const must = constraints.equals?.startsWith(`${field} must be `) ? constraints.equals.slice(field.length + 1) : null;
    return must ? `${field} is required and ${must}` : `${field} is required`;
  }
  const names = Object.keys(constraints);
  const kind = names.find((n) => KIND_CONSTRAINTS.has(n));
  // class-validator lists constraints last-declared first; the first declared is the general one.
  return constraints[kind ?? names[names.length - 1]];
}

/** One problem per field, in the order the fields were validated, nested fields by dotted path. */
export function flattenValidationErrors(errors: ValidationError[], parent = ''): FieldProblem[] {
  return errors.flatMap((e) => {
    const field = parent ? `${parent}.${e.property}` : e.property;
    const own = e.constraints && Object.keys(e.constraints).length > 0
      ? [{ field, message: bestMessage(field, e.value, e.constraints) }]
      : [];
    return [...own, ...flattenValidationErrors(e.children ?? [], field)];
  });
}

/**
 * Strict validation: unknown fields rejected, types converted only where declared, and no control
 * character in any text of a body, query or path (contract §2).
 */
class StrictValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' || metadata.type === 'query' || metadata.type === 'param') {
      assertNoControlCharacters(value, metadata.type);
    }
    return super.transform(value, metadata);
  }
}

export function strictValidationPipe(): ValidationPipe {
  rememberValidationRules();
  return new StrictValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    // The value is kept only to tell a missing field from a wrong one; it never reaches the answer.
    validationError: { target: false, value: true },
    exceptionFactory: (errors) => {
      const details = flattenValidationErrors(errors);
      return new AppError('validation_failed', details[0]?.message ?? 'The request is not valid.', details);
    },
  });
}
