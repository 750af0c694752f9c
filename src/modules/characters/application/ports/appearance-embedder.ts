/**
 * Turns an image into a 512-number appearance vector. The character's face embedding is the mean
 * over its reference images. Adapters: a local, offline one derived from the pixels, and an HTTP
 * one for a real embedding service (chosen when `EMBEDDING_URL` is set).
 */
export abstract class AppearanceEmbedder {
  /** Rejects with an AppError (`upstream_failed` or `unsupported_media_type`) it cannot embed. */
  abstract embed(image: Buffer): Promise<number[]>;
}
