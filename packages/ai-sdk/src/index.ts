export type { MediaGenErrorData } from './errors.js';
export { MediaGenImageModel } from './image-model.js';
export type { MediaGenCallOptions } from './options.js';
export { createMediaGen, type MediaGenProvider, type MediaGenProviderSettings, mediagen } from './provider.js';
export { MediaGenVideoModel } from './video-model.js';
