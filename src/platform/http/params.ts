import { PipeTransform } from '@nestjs/common';
import { AppError, isId, type IdPrefix } from '../../core/index.js';

/** A path id of the wrong prefix or shape is answered like a missing resource (contract §1). */
export class IdParam implements PipeTransform<string, string> {
  constructor(
    private readonly prefix: IdPrefix,
    private readonly what: string,
  ) {}

  transform(value: string): string {
    if (!isId(this.prefix, value)) throw AppError.notFound(this.what);
    return value;
  }
}
