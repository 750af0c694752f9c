import { jobTypes } from '../../../platform/queue/index.js';
import { CLONE_VOICE_JOB, GENERATE_SPEECH_JOB } from '../domain/voice.js';

export const VOICE_JOB_TYPES = jobTypes(CLONE_VOICE_JOB, GENERATE_SPEECH_JOB);

/** The voice record the clone fills, and what it was charged (a failure refunds it). */
export interface CloneVoiceJobPayload {
  voice_id: string;
  credits: number;
}

/** The audio clip the job speaks, and what it was charged. */
export interface GenerateSpeechJobPayload {
  audio_id: string;
  credits: number;
}

declare module '../../../platform/queue/job-types.js' {
  interface JobPayloads {
    clone_voice: CloneVoiceJobPayload;
    generate_speech: GenerateSpeechJobPayload;
  }
}
