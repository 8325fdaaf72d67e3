import type { GenerationEvents } from '../events/generation-events';
import { parseLimit } from '../util/limit';
import { createReceiver } from '../webhooks/handler';
import type { WebhookEvent } from '../webhooks/verify';
import { warnAtStart, webhookSecretProblem, webhookSecrets } from './configuration';
import { defaultOnError } from './default-on-error';
import type { MediaGenWebhookContext, MediaGenWebhookOptions } from './options';
import type { RouteName } from './routes';

/** The receiver alone: the handler's `webhook` options, plus the two handler options it reads. */
export interface WebhookHandlerOptions<Platform = unknown> extends MediaGenWebhookOptions<Platform> {
  /**
   * The app's client: its `wait()`/`run()` resolve on this receiver's events (shorthand for
   * `events: client.events`; a client with none gets in-process events installed).
   */
  client?: { events?: GenerationEvents | undefined; readonly baseUrl?: string };
  /**
   * Sees the receiver's failures (bad signatures, handler errors). Default: `console.error`,
   * except a delivery refused 4xx (forged or broken), which gets one `console.warn` line.
   */
  onError?(error: unknown): void;
}

/** The webhook receiver alone: a Web `Request` in (the adapter's own request as `platform`), the answer the service's retry rules expect out. */
export interface WebhookHandler<Platform = unknown> {
  (request: Request, platform?: Platform): Promise<Response>;
  /** Always `'webhook'`: every path the receiver alone is mounted on is its route (what core's Node layer asks). */
  route(method: string, pathname: string): RouteName | undefined;
}

/**
 * The webhook receiver alone, for an app that mounts it at a path of its own: the same receiver,
 * options and code path as `createMediaGenHandler({ webhook })`'s `POST /webhooks/mediagen`
 * (raw body bounded in size and time, signature, de-duplication on the signed body, status codes
 * by the service's retry rules). Each call owns its de-duplication state. Express's
 * `mediagenWebhook` and Next's `createWebhookHandler` are this, mounted.
 */
export function createWebhookHandler<Platform = unknown>(options: WebhookHandlerOptions<Platform>): WebhookHandler<Platform> {
  const { client, onError, ...webhook } = options;
  // As the handler's route: the emulator's secret in development when the client targets it,
  // and a missing secret said at start-up rather than on each delivery's 500.
  const secrets = webhookSecrets({ client, webhook });
  warnAtStart([webhookSecretProblem(secrets)]);
  const receive = mountReceiver({ ...webhook, secrets }, { client, onError: onError ?? defaultOnError });
  return Object.assign((request: Request, platform?: Platform) => receive(request, platform), { route: () => 'webhook' as const });
}

/** How the receiver is mounted: by the handler (its client, `source`, `onError`) or alone. */
interface Mount<Platform> {
  client?: { events?: GenerationEvents | undefined } | undefined;
  onError(error: unknown): void;
  /** Replaces `webhook.onEvent` (the handler runs its `source` first). */
  onEvent?(event: WebhookEvent, context: MediaGenWebhookContext<Platform>): unknown;
}

/** Core's one receiver with the public options: the one place both mounts build it. */
export function mountReceiver<Platform>(
  webhook: MediaGenWebhookOptions<Platform>,
  mount: Mount<Platform>,
): (request: Request, platform: Platform | undefined) => Promise<Response> {
  const platforms = new WeakMap<Request, Platform | undefined>();
  const onEvent = mount.onEvent ?? webhook.onEvent;
  const receive = createReceiver<MediaGenWebhookContext<Platform>>({
    ...webhook,
    maxBodyBytes: parseLimit(webhook.maxBodyBytes, 1_048_576),
    onEvent: (event, context) => onEvent?.(event, context),
    waitUntil: (promise, request) => webhook.waitUntil?.(promise, platforms.get(request)),
    client: mount.client,
    onError: (error) => mount.onError(error),
    context: (base) => ({ ...base, platform: platforms.get(base.request) }),
  });
  return (request, platform) => {
    platforms.set(request, platform);
    return receive(request);
  };
}
