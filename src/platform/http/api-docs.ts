import type { INestApplication, Type } from '@nestjs/common';
import { controllersOf, methodsOf } from './controllers.js';
import { ApiExtraModels, ApiProperty, ApiPropertyOptional, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import type { ErrorCode } from '../../core/index.js';
import type { ErrorStatusMap } from './error-status.js';

/** The error body every failure answers with (contract §2). */
export class ErrorBody {
  @ApiProperty({ example: 404 }) statusCode!: number;
  /** Its `enum` is the error status map's codes, set by `documentErrorResponses`. */
  @ApiProperty({ example: 'not_found' }) code!: string;
  @ApiProperty({ example: 'Character not found.' }) message!: string;
  @ApiPropertyOptional({ description: 'Extra facts; for validation, a list of {field, message}.' }) details?: unknown;
  @ApiProperty({ example: 'req_01J0000000000000000000000' }) request_id!: string;
}

const ERROR_CODES_KEY = 'persona:api-error-codes';
const DOCUMENTED_KEY = 'persona:api-error-codes-documented';
/** Every route can fail validation and fail unexpectedly. */
const ALWAYS: readonly ErrorCode[] = ['validation_failed', 'internal_error'];

/**
 * Records the error codes a route (or every route of a controller) can answer. Their statuses are
 * not known here: `documentErrorResponses` turns the codes into responses once the application's
 * error status map exists. Several uses on one target add up.
 */
export function ApiErrors(...codes: ErrorCode[]): MethodDecorator & ClassDecorator {
  return (target: object, key?: string | symbol, descriptor?: PropertyDescriptor) => {
    const holder: object = descriptor ? (descriptor.value as object) : target;
    const recorded = (Reflect.getMetadata(ERROR_CODES_KEY, holder) as ErrorCode[] | undefined) ?? [];
    Reflect.defineMetadata(ERROR_CODES_KEY, [...recorded, ...codes], holder);
    ApiExtraModels(ErrorBody)(target, key, descriptor);
  };
}

/** One documented response: a status and the codes that answer it, each once. */
export interface ErrorResponseGroup {
  status: number;
  codes: ErrorCode[];
}

/** Groups codes by their status, always with validation_failed and internal_error, each code once. */
export function groupErrorCodes(codes: readonly ErrorCode[], statuses: ErrorStatusMap): ErrorResponseGroup[] {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set([...ALWAYS, ...codes])) {
    const status = statuses[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return [...byStatus].map(([status, list]) => ({ status, codes: list }));
}

/**
 * Turns the codes `ApiErrors` recorded on the application's controllers into OpenAPI responses,
 * one per status, and lists the map's codes in `ErrorBody.code`. Run it before the document is
 * created. Throws, naming each route, when a route names a code the map lacks.
 */
export function documentErrorResponses(app: INestApplication, statuses: ErrorStatusMap): void {
  const targets = errorCodeTargets(app);
  const unknown = targets.flatMap((t) => t.codes.filter((c) => !Object.hasOwn(statuses, c)).map((c) => `${c} (${t.name})`));
  if (unknown.length > 0) throw new Error(`error codes missing from the error status map: ${unknown.join(', ')}`);
  ApiProperty({ enum: Object.keys(statuses), example: 'not_found' })(ErrorBody.prototype, 'code');
  for (const t of targets) {
    // Another application built in this process already documented the same classes.
    if (Reflect.getOwnMetadata(DOCUMENTED_KEY, t.holder)) continue;
    Reflect.defineMetadata(DOCUMENTED_KEY, true, t.holder);
    for (const { status, codes } of groupErrorCodes(t.codes, statuses)) {
      const decorate = ApiResponse({ status, description: codes.join(' | '), schema: { $ref: getSchemaPath(ErrorBody) } });
      if (t.method) decorate(t.controller.prototype, t.method, { value: t.holder });
      else decorate(t.controller);
    }
  }
}

interface ErrorCodeTarget {
  controller: Type;
  /** The handler's name; absent for codes declared on the controller class. */
  method?: string;
  /** What carries the metadata: the handler function or the controller class. */
  holder: object;
  name: string;
  codes: ErrorCode[];
}

function errorCodeTargets(app: INestApplication): ErrorCodeTarget[] {
  return controllersOf(app).flatMap(errorCodeTargetsOf);
}

function errorCodeTargetsOf(controller: Type): ErrorCodeTarget[] {
  const found: ErrorCodeTarget[] = [];
  const own = Reflect.getMetadata(ERROR_CODES_KEY, controller) as ErrorCode[] | undefined;
  if (own) found.push({ controller, holder: controller, name: controller.name, codes: own });
  for (const { name: method, handler } of methodsOf(controller)) {
    const codes = Reflect.getMetadata(ERROR_CODES_KEY, handler) as ErrorCode[] | undefined;
    if (codes) found.push({ controller, method, holder: handler, name: `${controller.name}.${method}`, codes });
  }
  return found;
}
