import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { MediaGenModuleOptions } from './options';

/** Extras of `forRoot`/`forRootAsync` that shape the module, not the client. */
export interface MediaGenModuleExtras {
  /** Register the client in every module of the app (no need to import the module again). */
  isGlobal?: boolean;
}

export const {
  ConfigurableModuleClass: MediaGenConfigurableModule,
  MODULE_OPTIONS_TOKEN: MEDIAGEN_MODULE_OPTIONS,
  OPTIONS_TYPE: MEDIAGEN_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: MEDIAGEN_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<MediaGenModuleOptions>({
  moduleName: 'MediaGen',
  optionsInjectionToken: Symbol('MEDIAGEN_MODULE_OPTIONS'),
})
  .setClassMethodName('forRoot')
  .setFactoryMethodName('createMediaGenOptions')
  .setExtras<MediaGenModuleExtras>({ isGlobal: false }, (definition, extras) => ({ ...definition, global: extras.isGlobal === true }))
  .build();
