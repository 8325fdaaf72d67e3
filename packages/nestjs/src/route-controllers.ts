import { ConfigurationError } from '@mediagen/core';
import { APP_ROUTES } from '@mediagen/core/wire';
import { All, Controller, Inject, Next, Post, Req, Res, type Type } from '@nestjs/common';
import {
  EXCEPTION_FILTERS_METADATA,
  GUARDS_METADATA,
  INTERCEPTORS_METADATA,
  PATH_METADATA,
  PIPES_METADATA,
} from '@nestjs/common/constants.js';
import { MediaGenHttp } from './mediagen-http';
import type { MediaGenModuleOptions, RouteDecorator } from './options';
import { MEDIAGEN_ROUTES_CONFIGURED } from './tokens';

const METHOD = 'serve';

/** The JSON routes, from core's table (the webhook has a controller of its own, at a path of the app's choice). */
const JSON_ROUTES = Object.entries(APP_ROUTES).flatMap(([name, path]) => (name === 'webhook' ? [] : [path]));

/**
 * The two controllers of one `MediaGenModule` import, classes of their own so that each import's
 * routes (paths, decorators) are set on its own classes. They are normal Nest routes: under the
 * global prefix, through the app's guards (which `decorators` can address). Each hands Nest's
 * `req`/`res` to core's one handler; only the paths it serves are registered, so the app's own
 * routes beside them are untouched.
 */
export function createControllers(): { routes: Type; webhook: Type } {
  @Controller()
  class MediaGenRoutesController {
    constructor(
      private readonly http: MediaGenHttp,
      // Resolving this configures the routes first (see `configureControllers`).
      @Inject(MEDIAGEN_ROUTES_CONFIGURED) _configured: unknown,
    ) {}

    @All(JSON_ROUTES)
    async serve(@Req() req: never, @Res() res: unknown, @Next() next: never): Promise<void> {
      await this.http.serveRoutes(req, res, next);
    }
  }

  @Controller()
  class MediaGenWebhookController {
    constructor(
      private readonly http: MediaGenHttp,
      @Inject(MEDIAGEN_ROUTES_CONFIGURED) _configured: unknown,
    ) {}

    @Post()
    async serve(@Req() req: never, @Res() res: unknown): Promise<void> {
      await this.http.serveWebhook(req, res);
    }
  }
  return { routes: MediaGenRoutesController, webhook: MediaGenWebhookController };
}

/**
 * Gives each controller its path and decorators, or no route at all when its part of the
 * options is absent. Runs while Nest builds the module (options known, even async ones), before
 * it registers routes. `late` is true for async options: by then Nest has already collected the
 * classes of guards, interceptors, pipes and exception filters it builds, so one given by class
 * could not be built and would silently not run; that is refused.
 */
export function configureControllers(controllers: { routes: Type; webhook: Type }, options: MediaGenModuleOptions, late: boolean): void {
  const { routes, webhook } = options;
  if (webhook && (typeof webhook.path !== 'string' || webhook.path.trim() === '')) {
    throw new ConfigurationError('MediaGenModule: webhook.path must be a route such as "api/webhooks/mediagen".');
  }
  if (routes && typeof routes.basePath !== 'string') {
    throw new ConfigurationError('MediaGenModule: routes.basePath must be a path such as "api" (or "" for the root).');
  }
  configure(controllers.routes, routes && { path: routes.basePath, decorators: routes.decorators }, late, 'routes');
  configure(controllers.webhook, webhook && { path: webhook.path, decorators: webhook.decorators }, late, 'webhook');
}

function configure(
  controller: Type,
  route: { path: string; decorators?: readonly RouteDecorator[] | undefined } | undefined,
  late: boolean,
  part: string,
): void {
  const prototype = controller.prototype as Record<string, unknown>;
  const method = prototype[METHOD] as object;
  if (!route) {
    // Nest maps only methods that carry a path: without it, this controller serves nothing.
    Reflect.deleteMetadata(PATH_METADATA, method);
    return;
  }
  Reflect.defineMetadata(PATH_METADATA, route.path, controller);
  const before = late ? enhancers(controller, method) : [];
  for (const decorator of route.decorators ?? []) applyDecorator(decorator, controller);
  const added = late
    ? enhancers(controller, method).filter((item) => !before.some((b) => b.kind === item.kind && b.type === item.type))
    : [];
  if (added.length > 0) {
    const names = added.map(({ kind, type }) => `${kind} ${type.name || '(anonymous class)'}`).join(', ');
    throw new ConfigurationError(
      `MediaGenModule.forRootAsync: ${part}.decorators adds ${names} by class, ` +
        'which Nest can no longer build at this point: it would silently not run. ' +
        'Pass an instance (UseGuards(new MyGuard()), UseFilters(new MyFilter()), UsePipes(new MyPipe())), or use forRoot, ' +
        'or an app-wide one with a metadata decorator such as @Public().',
    );
  }
}

function applyDecorator(decorator: RouteDecorator, controller: Type): void {
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
