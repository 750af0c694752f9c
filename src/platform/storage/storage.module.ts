import { Global, Module } from '@nestjs/common';
import { AppConfig } from '../../config/index.js';
import { LocalStorage } from './local-storage.js';
import { MediaSigner } from './media-signature.js';
import { MediaUrls, mediaRoutePrefix } from './media-urls.js';
import { MediaController } from './media.controller.js';
import { S3Storage } from './s3-storage.js';
import { Storage } from './storage.types.js';

/** The storage port, bound by `STORAGE_DRIVER`, the signed URLs of its media, and the route that serves them. */
@Global()
@Module({
  controllers: [MediaController],
  providers: [
    { provide: MediaSigner, inject: [AppConfig], useFactory: (config: AppConfig): MediaSigner => new MediaSigner(config.mediaSigningKey) },
    {
      provide: Storage,
      inject: [AppConfig, MediaSigner],
      useFactory: (config: AppConfig, signer: MediaSigner): Storage =>
        config.storageDriver === 's3' && config.s3
          ? new S3Storage({ ...config.s3, publicUrl: config.publicUrl })
          : new LocalStorage(config.storageDir, config.publicUrl, signer),
    },
    {
      provide: MediaUrls,
      inject: [AppConfig, Storage],
      useFactory: (config: AppConfig, storage: Storage): MediaUrls => {
        const prefixes = [mediaRoutePrefix(config.publicUrl)];
        if (config.s3?.publicBaseUrl) prefixes.push(config.s3.publicBaseUrl);
        if (config.s3) prefixes.push(`${config.s3.endpoint}/${config.s3.bucket}`);
        return new MediaUrls(storage, config.mediaUrlTtlSeconds, prefixes);
      },
    },
  ],
  exports: [Storage, MediaUrls],
})
export class StorageModule {}
