import type { INestApplication, Type } from '@nestjs/common';
import { controllersOf, methodsOf } from './controllers.js';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { ErrorCode } from '../../core/index.js';
import type { ErrorStatusMap } from './error-status.js';

/** The error body every failure answers with (contract §2). */
export class ErrorBody {
  @ApiProperty({ example: 404 }) statusCode!: number;
  /** Its `enum` is the error status map's codes, set by `buildOpenApiDocument`. */
  @ApiProperty({ example: 'not_found' }) code!: string;
  @ApiProperty({ example: 'Character not found.' }) message!: string;
  @ApiPropertyOptional({ description: 'Extra facts; for validation, a list of {field, message}.' }) details?: unknown;
  @ApiProperty({ example: 'req_01J0000000000000000000000' }) request_id!: string;
}

const ERROR_CODES_KEY = 'persona:api-error-codes';
/** Every route can fail validation and fail unexpectedly. */
const ALWAYS: readonly ErrorCode[] = ['validation_failed', 'internal_error'];

/**
 * Records the error codes a route (or every route of a controller) can answer. Nothing is written
 * into the OpenAPI metadata here: `buildOpenApiDocument` turns a route's codes (its controller's, its
 * own and those its access rule implies) into one response per status, once the error status map
 * is known. Several uses on one target add up; a code named twice counts once.
 */
export function ApiErrors(...codes: ErrorCode[]): MethodDecorator & ClassDecorator {
  return (target: object, _key?: string | symbol, descriptor?: PropertyDescriptor) => {
    const holder: object = descriptor ? (descriptor.value as object) : target;
    const recorded = (Reflect.getMetadata(ERROR_CODES_KEY, holder) as ErrorCode[] | undefined) ?? [];
    Reflect.defineMetadata(ERROR_CODES_KEY, [...recorded, ...codes], holder);
  };
}

/** The codes a route declares with `ApiErrors`: its controller's, then its own. */
export function declaredErrorCodes(controller: Type, handler: object): ErrorCode[] {
  const own = (target: object) => (Reflect.getMetadata(ERROR_CODES_KEY, target) as ErrorCode[] | undefined) ?? [];
  return [...own(controller), ...own(handler)];
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
    const status = statuses[code] as number | undefined;
    if (status === undefined) throw new Error(`error code ${code} is missing from the error status map`);
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return [...byStatus].map(([status, list]) => ({ status, codes: list }));
}

/**
 * Checked at boot, whether or not the docs are served: throws, naming each route, when a route
 * names an error code the application's status map lacks.
 */
export function assertErrorCodesKnown(app: INestApplication, statuses: ErrorStatusMap): void {
  const unknown: string[] = [];
  for (const controller of controllersOf(app)) {
    const own = (Reflect.getMetadata(ERROR_CODES_KEY, controller) as ErrorCode[] | undefined) ?? [];
    unknown.push(...own.filter((c) => !Object.hasOwn(statuses, c)).map((c) => `${c} (${controller.name})`));
    for (const { name, handler } of methodsOf(controller)) {
      const codes = (Reflect.getMetadata(ERROR_CODES_KEY, handler) as ErrorCode[] | undefined) ?? [];
      unknown.push(...codes.filter((c) => !Object.hasOwn(statuses, c)).map((c) => `${c} (${controller.name}.${name})`));
    }
  }
  if (unknown.length > 0) throw new Error(`error codes missing from the error status map: ${unknown.join(', ')}`);
}
