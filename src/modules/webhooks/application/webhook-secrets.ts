import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../../config/index.js';
import { SealedBox } from '../../../platform/crypto/index.js';

/** Signing secrets sealed at rest, each bound to its endpoint's id (a sealed value moved to another row does not open). */
@Injectable()
export class WebhookSecrets {
  private readonly box: SealedBox;

  constructor(config: AppConfig) {
    this.box = new SealedBox(config.tokenEncryptionKey, 'webhook-secrets');
  }

  seal(secret: string, endpointId: string): string {
    return this.box.seal(secret, endpointId);
  }

  open(sealed: string, endpointId: string): string {
    return this.box.open(sealed, endpointId);
  }
}
