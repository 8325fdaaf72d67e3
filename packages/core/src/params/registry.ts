import type { GenerateParams } from '../types';

/**
 * Params per model slug, for compile-time checking of `generations.create/estimate/run`.
 * Empty here, so every slug and the generic `GenerateParams` are accepted. `mediagen types`
 * (in `@mediagen/cli`) writes a declaration file from the account's own model list that
 * augments it, one entry per slug holding that model's params (without `model`):
 *
 * ```ts
 * declare module '@mediagen/core' {
 *   interface ModelParamsRegistry {
 *     'image-pro': { prompt: string; size?: '1024x1024' | '2048x2048'; quality?: 'standard' | 'high' };
 *   }
 * }
 * ```
 */
// biome-ignore lint/suspicious/noEmptyInterface: declared empty on purpose, for module augmentation.
export interface ModelParamsRegistry {}

/**
 * What `generations.create/estimate/run` accept: `GenerateParams` while the registry is empty,
 * else one object type per registered slug, told apart by `model`, so an off-list value, a
 * param the model does not take or an unknown slug is a compile-time error.
 */
export type TypedGenerateParams = [keyof ModelParamsRegistry] extends [never]
  ? GenerateParams
  : { [Slug in keyof ModelParamsRegistry]: { model: Slug } & ModelParamsRegistry[Slug] }[keyof ModelParamsRegistry];
