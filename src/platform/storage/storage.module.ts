import { Global, Module } from '@nestjs/common';
import { AppConfig } from '../../config/index.js';
import { LocalStorage } from './local-storage.js';
import { MediaController } from './media.controller.js';
import { S3Storage } from './s3-storage.js';
import { Storage } from './storage.types.js';

/** The storage port, bound by `STORAGE_DRIVER`, and the route that serves stored media. */
@Global()
@Module({
  controllers: [MediaController],
  providers: [
    {
      provide: Storage,
      inject: [AppConfig],
      useFactory: (config: AppConfig): Storage =>
        config.storageDriver === 's3' && config.s3
          ? new S3Storage({ ...config.s3, publicUrl: config.publicUrl })
          : new LocalStorage(config.storageDir, config.publicUrl),
    },
  ],
  exports: [Storage],
})
export class StorageModule {}
