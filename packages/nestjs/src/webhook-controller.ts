import { ConfigurationError } from '@mediagen/core';
import { Controller, Inject, Post, Req, Res, type Type } from '@nestjs/common';
import { GUARDS_METADATA, INTERCEPTORS_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import type { MediaGenWebhookOptions, WebhookRouteDecorator } from './options';
import { MEDIAGEN_WEBHOOK_ROUTE } from './tokens';
import { MediaGenWebhookReceiver } from './webhook-receiver';

const METHOD = 'receive';

/**
 * A webhook controller class of its own for each `MediaGenModule` import, so each import's
 * route (path, decorators) is set on its own class. The route is a normal Nest route: it sits
 * under the global prefix and goes through the app's guards, which `decorators` can address.
 */
export function createWebhookController(): Type {
  @Controller()
  class MediaGenWebhookController {
    constructor(
      private readonly receiver: MediaGenWebhookReceiver,
      // Resolving this configures the route first (see `configureWebhookRoute`).
      @Inject(MEDIAGEN_WEBHOOK_ROUTE) _route: unknown,
    ) {}

    @Post()
    async receive(@Req() req: never, @Res() res: unknown): Promise<void> {
      await this.receiver.receive(req, res);
    }
  }
  return MediaGenWebhookController;
}

/**
 * Gives the controller its path and decorators, or no route at all without `webhook`. Runs
 * while Nest builds the module (options known, even async ones), before it registers routes.
 * `late` is true for async options: by then Nest has already collected guard classes, so a
 * guard given by class could not be built and would silently not run; that is refused.
 */
export function configureWebhookRoute(controller: Type, webhook: MediaGenWebhookOptions | undefined, late: boolean): void {
  const prototype = controller.prototype as Record<string, unknown>;
  const method = prototype[METHOD] as object;
  if (!webhook) {
    // Nest maps only methods that carry a path: without it, this controller serves nothing.
    Reflect.deleteMetadata(PATH_METADATA, method);
    return;
  }
  if (typeof webhook.path !== 'string' || webhook.path.trim() === '') {
    throw new ConfigurationError('MediaGenModule: webhook.path must be a route such as "webhooks/mediagen".');
  }
  Reflect.defineMetadata(PATH_METADATA, webhook.path, controller);
  const before = late ? enhancers(controller, method) : 0;
  for (const decorator of webhook.decorators ?? []) applyDecorator(decorator, controller);
  if (late && enhancers(controller, method) !== before) {
    throw new ConfigurationError(
      'MediaGenModule.forRootAsync: webhook.decorators adds a guard or interceptor by class, which Nest can no longer build at this point. ' +
        'Pass an instance (UseGuards(new MyGuard())), or use forRoot, or a global guard with a metadata decorator such as @Public().',
    );
  }
}

function applyDecorator(decorator: WebhookRouteDecorator, controller: Type): void {
  const prototype = controller.prototype as object;
  const descriptor = Object.getOwnPropertyDescriptor(prototype, METHOD)!;
  // Nest's decorators (SetMetadata, UseGuards, applyDecorators, …) work on a method; that is where they go.
  (decorator as MethodDecorator)(prototype, METHOD, descriptor);
}

/** Guard and interceptor classes (not instances) on the route, which Nest builds only at scan time. */
function enhancers(controller: Type, method: object): number {
  let count = 0;
  for (const key of [GUARDS_METADATA, INTERCEPTORS_METADATA]) {
    for (const target of [controller, method]) {
      const list = Reflect.getMetadata(key, target) as unknown[] | undefined;
      count += (list ?? []).filter((item) => typeof item === 'function').length;
    }
  }
  return count;
}
