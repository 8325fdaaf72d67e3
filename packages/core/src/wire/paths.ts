import { API_PREFIX } from '../types';

// The service's endpoints (spec: Endpoints), relative to its base address; signed output links
// live under `OUTPUT_LINK_PREFIX` (see `outputLinkPath`).
export const GENERATE_PATH = `${API_PREFIX}/generate`;
export const GENERATIONS_PATH = `${API_PREFIX}/generations`;
export const MODELS_PATH = `${API_PREFIX}/models`;
export const CREDITS_PATH = `${API_PREFIX}/credits`;

/** `GET /api/v1/generations/{id}` for one id, percent-encoded. */
export const generationPath = (id: string): string => `${GENERATIONS_PATH}/${encodeURIComponent(id)}`;

/**
 * The routes an app serves to its own front end with `createMediaGenHandler` (from
 * `@mediagen/core/server`), relative to the base path the app mounts them at (`/api`). The
 * browser-side hooks build their URLs from the same table.
 */
export const APP_ROUTES = {
  /** `POST`: submit (the 202 body); `GET`: this user's generations, newest first. */
  generations: '/generations',
  /** `GET /generations/:id`: one generation, read live. */
  generation: '/generations/:id',
  /** `GET /generations/:id/events`: server-sent events, one `data:` line per status change. */
  events: '/generations/:id/events',
  /** `GET /generations/events`: server-sent events for every generation of the current user (their feed). */
  feed: '/generations/events',
  /** `GET`: the account's credit summary. */
  credits: '/credits',
  /** `POST`: the price of a request, nothing charged. */
  estimate: '/estimate',
  /** `GET`: the models the browser may use. */
  models: '/models',
  /** `POST`: the service's signed webhook deliveries. */
  webhook: '/webhooks/mediagen',
} as const;
