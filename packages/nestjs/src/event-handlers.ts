import { ConfigurationError, type WebhookEvent } from '@mediagen/core';
import type { MediaGenWebhookContext } from '@mediagen/core/server';
import { Injectable, type OnModuleInit, Scope } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { GenerationEventHandler, type GenerationEventPattern } from './on-generation-event';

interface Handler {
  /** `ClassName.method`, for messages. */
  name: string;
  patterns: ReadonlySet<GenerationEventPattern>;
  run(event: WebhookEvent, context: MediaGenWebhookContext): unknown;
}

/**
 * The app's `@OnGenerationEvent` methods, found once at start-up with Nest's own
 * `DiscoveryService`, on any provider (class, `useFactory`, `useValue`). They are called on
 * the singleton instance, outside any request and outside Nest's exception filters.
 */
@Injectable()
export class GenerationEventHandlers implements OnModuleInit {
  #handlers: Handler[] = [];

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
  ) {}

  onModuleInit(): void {
    this.#handlers = this.discover();
  }

  /** The handlers for `type`, in discovery order. */
  for(type: string): readonly Handler[] {
    return this.#handlers.filter((h) => h.patterns.has(type) || h.patterns.has('*'));
  }

  /**
   * Runs every handler for the event, concurrently; core's receiver calls it once per event
   * (its `dedupe` store, shared across instances with `RedisDedupeStore`). If any throws, the
   * error goes back to core (a 5xx, so the service retries) and the retry runs them all again.
   * Each handler gets its own `context.acknowledge()`: the delivery is acknowledged (answered 200
   * and marked seen) only once every handler has acknowledged or succeeded, so one handler's
   * acknowledge never commits a sibling that then fails (its event would be lost).
   */
  async dispatch(event: WebhookEvent, context: MediaGenWebhookContext): Promise<void> {
    const handlers = this.for(event.type);
    /** Handlers that have neither acknowledged nor succeeded yet. */
    let open = handlers.length;
    let askedToAcknowledge = false;
    let failed = false;
    let forwarded = false;
    const forward = () => {
      if (forwarded || failed || open > 0 || !askedToAcknowledge) return;
      forwarded = true;
      context.acknowledge();
    };
    const results = await Promise.allSettled(
      handlers.map(async (handler) => {
        let over = false;
        const done = () => {
          if (over) return;
          over = true;
          open -= 1;
          forward();
        };
        const own: MediaGenWebhookContext = Object.assign(
          Object.create(Object.getPrototypeOf(context) as object | null) as MediaGenWebhookContext,
          context,
          {
            acknowledge: () => {
              askedToAcknowledge = true;
              done();
            },
          },
        );
        try {
          await handler.run(event, own);
        } catch (error) {
          // Unless the delivery is acknowledged already, it is not done: the retry runs it again.
          failed = true;
          throw error;
        }
        done();
      }),
    );
    const failures = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
    if (failures.length === 1) throw failures[0];
    if (failures.length > 1) throw new AggregateError(failures, `${failures.length} @OnGenerationEvent handlers failed.`);
  }

  private discover(): Handler[] {
    const handlers: Handler[] = [];
    const seen = new Set<object>();
    for (const wrapper of this.discovery.getProviders()) {
      const { instance } = wrapper;
      const prototype = instance ? Object.getPrototypeOf(instance) : wrapper.metatype?.prototype;
      if (!prototype || typeof prototype !== 'object') continue;
      const methods = this.scanner.getAllMethodNames(prototype).flatMap((method) => {
        const patterns = this.reflector.get(GenerationEventHandler, prototype[method]) as readonly GenerationEventPattern[] | undefined;
        return patterns ? [{ method, patterns }] : [];
      });
      if (methods.length === 0) continue;
      const owner = instance?.constructor?.name ?? String(wrapper.name);
      if (!wrapper.isDependencyTreeStatic() || wrapper.scope === Scope.REQUEST || wrapper.scope === Scope.TRANSIENT) {
        throw new ConfigurationError(
          `@OnGenerationEvent on ${owner}.${methods[0]!.method}: ${owner} is ${wrapper.isTransient ? 'transient' : 'request-scoped (or depends on a request-scoped provider)'}. ` +
            'Webhook events are handled outside any HTTP request, so there is no request to build it for. ' +
            'Make the provider a singleton (the default scope) and, if it needs request-scoped services, resolve them per event with ModuleRef.resolve().',
        );
      }
      // The same instance under two tokens (useExisting) is one handler, not two.
      if (!instance || seen.has(instance)) continue;
      seen.add(instance);
      for (const { method, patterns } of methods) {
        const fn = (instance as Record<string, (...args: unknown[]) => unknown>)[method]!;
        handlers.push({
          name: `${owner}.${method}`,
          patterns: new Set(patterns),
          run: (event, context) => fn.call(instance, event, context),
        });
      }
    }
    return handlers;
  }
}
