import 'reflect-metadata';
import { deliver, makePayload } from '@mediagen/conformance';
import { MediaGenClient, type WebhookEvent } from '@mediagen/core';
import {
  type ArgumentsHost,
  type CanActivate,
  Catch,
  Controller,
  type ExceptionFilter,
  type ExecutionContext,
  Get,
  Injectable,
  Module,
  type PipeTransform,
  Scope,
  SetMetadata,
  UseFilters,
  UseGuards,
  UsePipes,
} from '@nestjs/common';
import { APP_GUARD, Reflector } from '@nestjs/core';
import { afterEach, describe, expect, it } from 'vitest';
import { MediaGenModule, OnGenerationEvent } from '../src';
import { handlerProviders, Recorder } from './support/handlers';
import { PLATFORMS, startApp } from './support/nest';

const SECRET = 'whsec_nest_startup';
const apps: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
});
async function start(...args: Parameters<typeof startApp>) {
  const started = await startApp(...args);
  apps.push(started);
  return started;
}

const withWebhook = (extra: object = {}) =>
  MediaGenModule.forRoot({ apiKey: 'svc_live_x', webhook: { path: 'webhooks/mediagen', secrets: SECRET, ...extra } });

const IS_PUBLIC = 'is-public';
/** An app-wide auth guard, as many apps have: only routes marked public get through without a token. */
@Injectable()
class AuthGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}
  canActivate(context: ExecutionContext): boolean {
    if (this.reflector.getAllAndOverride(IS_PUBLIC, [context.getHandler(), context.getClass()])) return true;
    return context.switchToHttp().getRequest().headers.authorization === 'Bearer app-token';
  }
}

@Controller('private')
class PrivateController {
  @Get()
  get() {
    return { ok: true };
  }
}

@Injectable({ scope: Scope.REQUEST })
class RequestScopedHandler {
  @OnGenerationEvent('generation.completed')
  onCompleted(_event: WebhookEvent) {}
}

class NeverAllow implements CanActivate {
  canActivate() {
    return false;
  }
}

/** Answers every error on the route 418: proof that it ran. */
@Catch()
class TeapotFilter implements ExceptionFilter {
  catch(_error: unknown, host: ArgumentsHost) {
    const res = host.switchToHttp().getResponse();
    if (typeof res.code === 'function') res.code(418).send({ teapot: true });
    else res.status(418).json({ teapot: true });
  }
}

class NoopPipe implements PipeTransform {
  transform(value: unknown) {
    return value;
  }
}

for (const platform of PLATFORMS) {
  describe(`${platform}: start-up checks and the route`, () => {
    it('an app created without rawBody: true fails at start-up, with the fix in the message', async () => {
      const failure = start({ platform, rawBody: false, imports: [withWebhook()] });
      await expect(failure).rejects.toThrow(/without rawBody: true/);
      await expect(failure).rejects.toThrow(/NestFactory\.create\(AppModule, \{ rawBody: true \}\)/);
    });

    it('an app without a webhook route needs no rawBody, and serves no route', async () => {
      const { origin } = await start({ platform, rawBody: false, imports: [MediaGenModule.forRoot({ apiKey: 'svc_live_x' })] });
      const res = await deliver(`${origin}/webhooks/mediagen`, makePayload(), { secret: SECRET });
      expect(res.status).toBe(404);
    });

    it('a request-scoped provider with a handler is refused at start-up, saying why', async () => {
      const failure = start({ platform, imports: [withWebhook()], providers: [RequestScopedHandler] });
      await expect(failure).rejects.toThrow(/RequestScopedHandler\.onCompleted.*request-scoped.*outside any HTTP request/s);
    });

    it('the path comes from async options and sits under the global prefix', async () => {
      const recorder = new Recorder();
      const { origin } = await start({
        platform,
        imports: [
          MediaGenModule.forRootAsync({
            useFactory: async () => ({ apiKey: 'svc_live_x', webhook: { path: 'hooks/from-config', secrets: [SECRET] } }),
          }),
        ],
        providers: handlerProviders(recorder),
        configure: (app) => app.setGlobalPrefix('api'),
      });
      const payload = makePayload();
      expect((await deliver(`${origin}/hooks/from-config`, payload, { secret: SECRET })).status).toBe(404);
      expect((await deliver(`${origin}/api/hooks/from-config`, payload, { secret: SECRET })).status).toBe(200);
      expect(recorder.ran(payload.generation_id)).toContain('completed');
    });

    for (const variant of ['forRoot', 'forRootAsync'] as const) {
      it(`${variant}: decorators on the route let it past the app's global auth guard`, async () => {
        const webhook = { path: 'webhooks/mediagen', secrets: SECRET, decorators: [SetMetadata(IS_PUBLIC, true)] };
        const module =
          variant === 'forRoot'
            ? MediaGenModule.forRoot({ apiKey: 'svc_live_x', webhook })
            : MediaGenModule.forRootAsync({ useFactory: () => ({ apiKey: 'svc_live_x', webhook }) });
        const { origin } = await start({
          platform,
          imports: [module],
          controllers: [PrivateController],
          providers: [{ provide: APP_GUARD, useClass: AuthGuard }],
        });
        expect((await fetch(`${origin}/private`)).status).toBe(403);
        expect((await deliver(`${origin}/webhooks/mediagen`, makePayload(), { secret: SECRET })).status).toBe(200);
      });
    }

    it('forRoot: a guard given by class in decorators runs on the route', async () => {
      const { origin } = await start({ platform, imports: [withWebhook({ decorators: [UseGuards(NeverAllow)] })] });
      expect((await deliver(`${origin}/webhooks/mediagen`, makePayload(), { secret: SECRET })).status).toBe(403);
    });

    it('forRootAsync: a guard given by class in decorators is refused at start-up rather than silently skipped', async () => {
      const module = MediaGenModule.forRootAsync({
        useFactory: () => ({ apiKey: 'svc_live_x', webhook: { path: 'w', secrets: SECRET, decorators: [UseGuards(NeverAllow)] } }),
      });
      await expect(start({ platform, imports: [module] })).rejects.toThrow(/adds guard NeverAllow by class/);
    });

    for (const [kind, decorator, name] of [
      ['an exception filter', UseFilters(TeapotFilter), 'exception filter TeapotFilter'],
      ['a pipe', UsePipes(NoopPipe), 'pipe NoopPipe'],
    ] as const) {
      it(`forRootAsync: ${kind} given by class in decorators is refused at start-up rather than silently dropped`, async () => {
        const module = MediaGenModule.forRootAsync({
          useFactory: () => ({ apiKey: 'svc_live_x', webhook: { path: 'w', secrets: SECRET, decorators: [decorator] } }),
        });
        const failure = start({ platform, imports: [module] });
        await expect(failure).rejects.toThrow(new RegExp(`adds ${name} by class`));
        await expect(failure).rejects.toThrow(/Pass an instance/);
      });
    }

    it('forRootAsync: guards and filters given as instances are kept and run', async () => {
      const module = MediaGenModule.forRootAsync({
        useFactory: () => ({
          apiKey: 'svc_live_x',
          webhook: { path: 'w', secrets: SECRET, decorators: [UseFilters(new TeapotFilter()), UseGuards(new NeverAllow())] },
        }),
      });
      const { origin } = await start({ platform, imports: [module] });
      // The guard refuses (403), and the filter turns that into its 418.
      expect((await deliver(`${origin}/w`, makePayload(), { secret: SECRET })).status).toBe(418);
    });
  });
}

/** Options from a class, as `forRootAsync({ useClass })` takes them. */
@Injectable()
class MediaGenSettings {
  createMediaGenOptions() {
    return { apiKey: 'svc_live_x', webhook: { path: 'from-class', secrets: SECRET } };
  }
}

describe('import once, re-export', () => {
  it('feature modules importing a module that re-exports MediaGenModule share one client and one route', async () => {
    @Module({ imports: [withWebhook()], exports: [MediaGenModule] })
    class MediaGenSetupModule {}
    @Injectable()
    class A {
      constructor(readonly client: MediaGenClient) {}
    }
    @Injectable()
    class B {
      constructor(readonly client: MediaGenClient) {}
    }
    @Module({ imports: [MediaGenSetupModule], providers: [A], exports: [A] })
    class FeatureA {}
    @Module({ imports: [MediaGenSetupModule], providers: [B], exports: [B] })
    class FeatureB {}
    const recorder = new Recorder();
    const { app, origin } = await start({ platform: 'express', imports: [FeatureA, FeatureB], providers: handlerProviders(recorder) });
    expect(app.get(A).client).toBe(app.get(B).client);
    const payload = makePayload();
    expect((await deliver(`${origin}/webhooks/mediagen`, payload, { secret: SECRET })).status).toBe(200);
    // One receiver: each handler ran once, not once per import.
    expect(recorder.ran(payload.generation_id).filter((h) => h === 'completed')).toEqual(['completed']);
  });
});

describe('forRootAsync with useClass', () => {
  it('takes the options from the class', async () => {
    const recorder = new Recorder();
    const { origin } = await start({
      platform: 'express',
      imports: [MediaGenModule.forRootAsync({ useClass: MediaGenSettings })],
      providers: handlerProviders(recorder),
    });
    const payload = makePayload();
    expect((await deliver(`${origin}/from-class`, payload, { secret: SECRET })).status).toBe(200);
    expect(recorder.ran(payload.generation_id)).toContain('completed');
  });
});

describe('forRootAsync with useExisting', () => {
  it('takes the options from a provider the imported module already has, without making another one', async () => {
    @Injectable()
    class ExistingSettings {
      static made = 0;
      constructor() {
        ExistingSettings.made++;
      }
      createMediaGenOptions() {
        return { apiKey: 'svc_live_x', webhook: { path: 'from-existing', secrets: SECRET } };
      }
    }
    @Module({ providers: [ExistingSettings], exports: [ExistingSettings] })
    class SettingsModule {}
    const recorder = new Recorder();
    const { app, origin } = await start({
      platform: 'express',
      imports: [SettingsModule, MediaGenModule.forRootAsync({ imports: [SettingsModule], useExisting: ExistingSettings })],
      providers: handlerProviders(recorder),
    });
    expect(ExistingSettings.made).toBe(1);
    expect(app.get(MediaGenClient)).toBeInstanceOf(MediaGenClient);
    const payload = makePayload();
    expect((await deliver(`${origin}/from-existing`, payload, { secret: SECRET })).status).toBe(200);
    expect(recorder.ran(payload.generation_id)).toContain('completed');
  });
});

for (const platform of PLATFORMS) {
  describe(`${platform}: bodyParser: false`, () => {
    for (const rawBody of [true, false]) {
      it(`fails at start-up saying the parser is off (rawBody: ${rawBody}), with the fix in the message`, async () => {
        const failure = start({ platform, rawBody, bodyParser: false, imports: [withWebhook()] });
        await expect(failure).rejects.toThrow(/created with bodyParser: false.*rawBody: true/s);
        await expect(failure).rejects.not.toThrow(/without rawBody: true/);
      });
    }
  });
}

describe('isGlobal', () => {
  it('a feature module injects the client without importing the module', async () => {
    @Injectable()
    class FeatureService {
      constructor(readonly client: MediaGenClient) {}
    }
    @Module({ providers: [FeatureService], exports: [FeatureService] })
    class FeatureModule {}
    const { app } = await start({
      platform: 'express',
      imports: [MediaGenModule.forRoot({ apiKey: 'svc_live_x', isGlobal: true }), FeatureModule],
    });
    expect(app.get(FeatureService).client).toBe(app.get(MediaGenClient));
  });

  it('without it, a feature module that does not import the module fails to resolve the client', async () => {
    @Injectable()
    class FeatureService {
      constructor(readonly client: MediaGenClient) {}
    }
    @Module({ providers: [FeatureService] })
    class FeatureModule {}
    await expect(
      start({ platform: 'express', imports: [MediaGenModule.forRoot({ apiKey: 'svc_live_x' }), FeatureModule] }),
    ).rejects.toThrow(/MediaGenClient/);
  });
});
