import { Global, Module } from '@nestjs/common';
import { SafeFetcher } from './safe-fetcher.js';

/** The SSRF-safe downloader for user-supplied URLs, available everywhere. */
@Global()
@Module({
  providers: [SafeFetcher],
  exports: [SafeFetcher],
})
export class OutboundModule {}
