/**
 * Fetches the driving video from a URL a client gave us. Implementations must be SSRF-safe
 * (only public addresses unless the operator allow-lists a host) and stop reading at
 * `maxBytes`. Every refusal or failure is an `AppError` with a message a client can act on.
 */
export abstract class ReferenceVideoDownloader {
  abstract download(url: string, opts: { maxBytes: number; signal?: AbortSignal }): Promise<Buffer>;
}
