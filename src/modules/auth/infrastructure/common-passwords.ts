import { Injectable } from '@nestjs/common';

/**
 * The common-password dictionary: the 49,233 most frequent passwords of public breach corpora as
 * shipped by @zxcvbn-ts/language-common. Decompressing it takes tens of milliseconds and about
 * 10 MB, so it is loaded on the first password set (never on sign-in) and then kept for good.
 */
@Injectable()
export class CommonPasswords {
  private words?: Promise<ReadonlySet<string>>;

  /** The dictionary as a set of lower-case words; concurrent first callers share one load. */
  load(): Promise<ReadonlySet<string>> {
    this.words ??= import('@zxcvbn-ts/language-common').then(({ dictionary }) => new Set(dictionary['passwords-common']));
    // A failed load is retried by the next caller instead of failing every registration for good.
    this.words.catch(() => (this.words = undefined));
    return this.words;
  }
}
