import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../../config/index.js';
import { SealedBox } from '../../../platform/crypto/index.js';

/** Endpoint API keys at rest: sealed with a key of their own, bound to the endpoint's id. */
@Injectable()
export class EndpointSecrets {
  private readonly box: SealedBox;

  constructor(config: AppConfig) {
    this.box = new SealedBox(config.tokenEncryptionKey, 'selfhosted-endpoint-keys');
  }

  seal(apiKey: string, endpointId: string): string {
    return this.box.seal(apiKey, endpointId);
  }

  open(sealed: string, endpointId: string): string {
    return this.box.open(sealed, endpointId);
  }
}
