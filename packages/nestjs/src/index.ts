export { type GenerationCompletedEvent, type GenerationFailedEvent, MediaGenClient, type WebhookEvent } from '@mediagen/core';
export type {
  GenerationPage,
  GenerationSource,
  MediaGenContext,
  MediaGenWebhookContext,
  SubmittedGeneration,
  WebhookContext,
  WebhookDedupeStore,
} from '@mediagen/core/server';
export { SubmitRefusedError } from '@mediagen/core/server';
export { MediaGenExceptionFilter } from './exception-filter';
export { InjectMediaGen } from './inject-mediagen';
export { MediaGenModule } from './mediagen.module';
export {
  MEDIAGEN_ASYNC_OPTIONS_TYPE,
  MEDIAGEN_MODULE_OPTIONS,
  MEDIAGEN_OPTIONS_TYPE,
  type MediaGenModuleExtras,
} from './module-definition';
export { type GenerationEventPattern, OnGenerationEvent } from './on-generation-event';
export type { MediaGenModuleOptions, MediaGenRoutesOptions, MediaGenWebhookOptions, NestPlatformRequest, RouteDecorator } from './options';
export { MEDIAGEN_CLIENT } from './tokens';
