import { ConfigurationError } from '@mediagen/core';
import { Controller, Inject, Post, Req, Res, type Type } from '@nestjs/common';
import {
  EXCEPTION_FILTERS_METADATA,
  GUARDS_METADATA,
  INTERCEPTORS_METADATA,
  PATH_METADATA,
  PIPES_METADATA,
} from '@nestjs/common/constants.js';
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
 * `late` is true for async options: by then Nest has already collected the classes of guards,
 * interceptors, pipes and exception filters it builds, so one given by class could not be built
 * and would silently not run; that is refused.
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
  const before = late ? enhancers(controller, method) : [];
  for (const decorator of webhook.decorators ?? []) applyDecorator(decorator, controller);
  const added = late
    ? enhancers(controller, method).filter((item) => !before.some((b) => b.kind === item.kind && b.type === item.type))
    : [];
  if (added.length > 0) {
    const names = added.map(({ kind, type }) => `${kind} ${type.name || '(anonymous class)'}`).join(', ');
    throw new ConfigurationError(
      `MediaGenModule.forRootAsync: webhook.decorators adds ${names} by class, ` +
        'which Nest can no longer build at this point: it would silently not run. ' +
        'Pass an instance (UseGuards(new MyGuard()), UseFilters(new MyFilter()), UsePipes(new MyPipe())), or use forRoot, ' +
        'or an app-wide one with a metadata decorator such as @Public().',
    );
  }
}

function applyDecorator(decorator: WebhookRouteDecorator, controller: Type): void {
  const prototype = controller.prototype as object;
  const descriptor = Object.getOwnPropertyDescriptor(prototype, METHOD)!;
  // Nest's decorators (SetMetadata, UseGuards, applyDecorators, …) work on a method; that is where they go.
  (decorator as MethodDecorator)(prototype, METHOD, descriptor);
}

const ENHANCERS = [
  [GUARDS_METADATA, 'guard'],
  [INTERCEPTORS_METADATA, 'interceptor'],
  [PIPES_METADATA, 'pipe'],
  [EXCEPTION_FILTERS_METADATA, 'exception filter'],
] as const;

/** Guard, interceptor, pipe and exception filter classes (not instances) on the route, which Nest builds only at scan time. */
function enhancers(controller: Type, method: object): Array<{ kind: string; type: Type }> {
  const found: Array<{ kind: string; type: Type }> = [];
  for (const [key, kind] of ENHANCERS) {
    for (const target of [controller, method]) {
      const list = Reflect.getMetadata(key, target) as unknown[] | undefined;
      for (const item of list ?? []) if (typeof item === 'function') found.push({ kind, type: item as Type });
    }
  }
  return found;
}
