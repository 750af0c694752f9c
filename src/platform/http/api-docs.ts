import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiProperty, ApiPropertyOptional, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { ERROR_STATUS, type ErrorCode } from '../../core/index.js';

/** The error body every failure answers with (contract §2). */
export class ErrorBody {
  @ApiProperty({ example: 404 }) statusCode!: number;
  @ApiProperty({ enum: Object.keys(ERROR_STATUS), example: 'not_found' }) code!: string;
  @ApiProperty({ example: 'Character not found.' }) message!: string;
  @ApiPropertyOptional({ description: 'Extra facts; for validation, a list of {field, message}.' }) details?: unknown;
  @ApiProperty({ example: 'req_01J0000000000000000000000' }) request_id!: string;
}

/** Documents the error codes a route can answer, grouped by status. */
export function ApiErrors(...codes: ErrorCode[]): MethodDecorator & ClassDecorator {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of ['validation_failed', 'internal_error', ...codes] as ErrorCode[]) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...new Set([...(byStatus.get(status) ?? []), code])]);
  }
  return applyDecorators(
    ApiExtraModels(ErrorBody),
    ...[...byStatus].map(([status, list]) =>
      ApiResponse({ status, description: list.join(' | '), schema: { $ref: getSchemaPath(ErrorBody) } }),
    ),
  );
}
