/**
 * The service's job types and their payloads. The context that owns a job type declares it here,
 * beside its payload type, by module augmentation:
 *
 *     declare module '../../../platform/queue/job-types.js' {
 *       interface JobPayloads { generate_image: ImageJobPayload }
 *     }
 *
 * so creating a job with another type's payload does not compile and a handler gets its payload
 * typed. The context also lists the type in its job types, which the service assembles
 * (`src/job-types.ts`) and the handler registry checks at boot: each type has exactly one handler.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled in by the contexts' augmentations
export interface JobPayloads {}

export type JobType = keyof JobPayloads & string;

/** A context's job types, as the literal list the service assembles. */
export function jobTypes<const T extends readonly JobType[]>(...types: T): T {
  return types;
}
