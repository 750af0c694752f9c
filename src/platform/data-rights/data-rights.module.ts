import { Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { DataContributors } from './contributor-registry.js';

/** The registry of every context's data-rights contributor, available everywhere. */
@Global()
@Module({
  imports: [DiscoveryModule],
  providers: [DataContributors],
  exports: [DataContributors],
})
export class DataRightsModule {}
