import { applyDecorators, type CanActivate, type ExecutionContext, Injectable, UseGuards } from '@nestjs/common';
import type { Request } from 'express';
import { AppError } from '../../core/index.js';
import { ApiErrors } from './api-docs.js';

/**
 * Refuses a body that is not JSON (415). A page on another site can post a form
 * (`application/x-www-form-urlencoded`, `multipart/form-data`, `text/plain`) to any address without
 * asking; it can send JSON only after a CORS preflight, which only the dashboard's origins pass.
 * Routes a stranger's page must not be able to trigger (mail to a victim, account changes) take JSON only.
 */
@Injectable()
export class JsonBodyGuard implements CanActivate {
  canActivate(ctx: ExecutionContext): boolean {
    const req = ctx.switchToHttp().getRequest<Request>();
    if (req.is('application/json') !== 'application/json') {
      throw new AppError('unsupported_media_type', 'This route takes a JSON body (Content-Type: application/json).');
    }
    return true;
  }
}

export const JsonOnly = (): MethodDecorator & ClassDecorator => applyDecorators(UseGuards(JsonBodyGuard), ApiErrors('unsupported_media_type'));
