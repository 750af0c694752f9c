import type { DeliveryStatus, DisabledReason } from '../domain/webhook-rules.js';

/** An endpoint as the routes show it: never its secret. */
export interface EndpointView {
  id: string;
  workspaceId: string;
  url: string;
  description: string;
  eventTypes: string[];
  enabled: boolean;
  disabledReason: DisabledReason | null;
  disabledAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  /** When the previous secret stops signing; null when no rotation overlaps. */
  secretRotationEndsAt: Date | null;
}

/** An endpoint with the secret just made (create and rotate answer it once). */
export interface EndpointWithSecret {
  endpoint: EndpointView;
  secret: string;
}

export interface AttemptView {
  attempt: number;
  startedAt: Date;
  durationMs: number;
  statusCode: number | null;
  responseExcerpt: string | null;
  error: string | null;
}

export interface DeliveryView {
  id: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: Date | null;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: Date;
  deliveredAt: Date | null;
  /** The attempts, oldest first (the list answers the last few). */
  attemptLog: AttemptView[];
}

export interface NewEndpoint {
  url: string;
  description?: string;
  eventTypes: string[];
}

export interface EndpointPatch {
  url?: string;
  description?: string;
  eventTypes?: string[];
  enabled?: boolean;
}

export interface DeliveryFilter {
  status?: DeliveryStatus;
  eventType?: string;
}
