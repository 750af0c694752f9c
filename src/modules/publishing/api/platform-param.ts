import { PipeTransform } from '@nestjs/common';
import { AppError, canonicalPlatform, isPlatformName, type Platform } from '../../../core/index.js';

/** `{platform}` in a path: any accepted spelling, as the platform it means; unknown is 404 (contract §8). */
export class PlatformParam implements PipeTransform<string, Platform> {
  transform(value: string): Platform {
    if (!isPlatformName(value)) throw AppError.notFound('Platform');
    return canonicalPlatform(value);
  }
}
