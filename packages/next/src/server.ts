/**
 * `@mediagen/next/server`: server actions. Server-only: importing it from a client component
 * fails the build, so the API key can never be bundled for the browser.
 */
import 'server-only';

export {
  type ActionError,
  type ActionResult,
  createGenerationActions,
  type GenerationActions,
  type GenerationActionsOptions,
  type SubmitGenerationOptions,
} from './actions';
