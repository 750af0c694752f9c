import { Global, Module } from '@nestjs/common';

@Global()
@Module({})
export class StorageModule {}
