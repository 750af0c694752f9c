/**
 * What other contexts may use from the generation context: the generator ports (image, video,
 * text), the seam where a job's image generator is chosen, the provider-call guard, and the
 * offline LoRA style grid's layout (the lora context trains what the local image generator applies).
 */
export { GenerationModule } from './generation.module.js';
export {
  ImageGenerator, TextGenerator, VideoGenerator, SpeechGenerator, TalkingHeadGenerator, ASPECT_RATIOS, CAPTION_STYLES, SPEECH_FORMATS,
} from './application/ports/index.js';
export type {
  AspectRatio,
  CaptionDraft,
  CaptionStyle,
  ReplyDraft,
  ReplyDraftRequest,
  ThreadMessage,
  CharacterBrief,
  GeneratedMedia,
  CloneRequest,
  ImageLora,
  LibraryVoice,
  Speech,
  SpeechAlignment,
  SpeechFormat,
  SpeechRequest,
  TalkingHeadRequest,
  TalkingHeadVideo,
  VoiceSample,
  VoiceSettings,
  ImageRequest,
  MotionTransferRequest,
  VideoRequest,
} from './application/ports/index.js';
export { CLOUD_ROUTE, ImageGeneratorSeam, ImageRouter, drawnRoute, type DrawnRoute, type ImageRoute, type RoutedImages } from './application/image-routing.js';
export { callProvider } from './application/provider-call.js';
export { failsForGood, fromOutbound, upstreamFailed } from './infrastructure/providers/shared/provider-failure.js';
export { LORA_STYLE_GRID, applyStyle, styleAxis, type StyleAxis, promptWithLook, fitImage } from './infrastructure/providers/index.js';
