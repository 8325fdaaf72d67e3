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
export type {
  MediaGenModuleOptions,
  MediaGenModuleRoutesOptions,
  MediaGenModuleWebhookOptions,
  NestPlatformRequest,
  RouteDecorator,
} from './options';
export { MEDIAGEN_CLIENT } from './tokens';
