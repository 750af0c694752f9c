/** What one POST to a receiver came to: its status (null when none came back), the answer's first KiB, or the error. */
export interface SendResult {
  status: number | null;
  excerpt: string | null;
  error: string | null;
  durationMs: number;
}

/**
 * Posts one delivery. The address is resolved and vetted at connect time under the rules for
 * user-supplied URLs, the connection goes to the vetted address, and a redirect is never followed.
 */
export abstract class WebhookSender {
  abstract send(url: string, headers: Record<string, string>, body: string, timeoutMs: number): Promise<SendResult>;
}
