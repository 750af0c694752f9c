import { PipeTransform } from '@nestjs/common';
import { AppError, isId, type IdPrefix } from '../../core/index.js';

/** A zero-based position in a path (media index, variant index); anything else is a missing one. */
export class IndexParam implements PipeTransform<string, number> {
  constructor(private readonly what: string) {}

  transform(value: string): number {
    if (!/^\d{1,4}$/.test(value)) throw AppError.notFound(this.what);
    return Number(value);
  }
}

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
