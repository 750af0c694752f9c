import type { Capability } from './routing-rules.js';

/** The self-hosted servers the adapters speak to: AUTOMATIC1111/Forge and ComfyUI. */
export const ENDPOINT_KINDS = ['a1111', 'comfyui'] as const;
export type EndpointKind = (typeof ENDPOINT_KINDS)[number];

export const ENDPOINT_STATUSES = ['active', 'disabled'] as const;
export type EndpointStatus = (typeof ENDPOINT_STATUSES)[number];

export const MAX_CONCURRENCY_LIMIT = 64;

/** A self-hosted GPU server as stored; its secret stays sealed until a request needs it. */
export interface Endpoint {
  id: string;
  name: string;
  url: string;
  kind: EndpointKind;
  status: EndpointStatus;
  maxConcurrency: number;
  capabilities: Capability[];
  /** The API key sealed with the row's id; null when the endpoint needs none. */
  apiKeySealed: string | null;
  /** ComfyUI: the admin's API-format workflow; null for the built-in one. */
  workflow: Record<string, unknown> | null;
  createdAt: Date;
  updatedAt: Date;
}

/** Whether, and how much, of image generation goes self-hosted. One row for the whole service. */
export interface RoutingSettings {
  enabled: boolean;
  /** 0-100: jobs whose bucket is below it go self-hosted. */
  percentage: number;
  updatedAt: Date;
}
