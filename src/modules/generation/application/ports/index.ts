export * from './media.js';
export * from './image-generator.js';
export * from './text-generator.js';
export * from './video-generator.js';
export * from './speech-generator.js';
export * from './talking-head-generator.js';
