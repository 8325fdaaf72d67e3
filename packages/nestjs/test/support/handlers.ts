import type { WebhookEvent } from '@mediagen/core';
import { Injectable } from '@nestjs/common';
import { OnGenerationEvent } from '../../src';

/** Every handler call, by handler name; `behaviour` lets a test make one of them fail or wait. */
export class Recorder {
  calls: Array<{ handler: string; event: WebhookEvent }> = [];
  behaviour: (handler: string, event: WebhookEvent) => unknown = () => {};

  async record(handler: string, event: WebhookEvent): Promise<void> {
    await this.behaviour(handler, event);
    this.calls.push({ handler, event });
  }

  /** Handler names that ran for this generation, sorted. */
  ran(generationId: string): string[] {
    return this.calls
      .filter((c) => c.event.data.generation_id === generationId)
      .map((c) => c.handler)
      .sort();
  }

  reset(): void {
    this.calls = [];
    this.behaviour = () => {};
  }
}

@Injectable()
export class CompletedHandlers {
  constructor(private readonly recorder: Recorder) {}

  @OnGenerationEvent('generation.completed')
  onCompleted(event: WebhookEvent) {
    return this.recorder.record('completed', event);
  }

  @OnGenerationEvent('generation.completed')
  alsoOnCompleted(event: WebhookEvent) {
    return this.recorder.record('completed-2', event);
  }
}

@Injectable()
export class FailedHandler {
  constructor(private readonly recorder: Recorder) {}

  @OnGenerationEvent('generation.failed')
  onFailed(event: WebhookEvent) {
    return this.recorder.record('failed', event);
  }
}

@Injectable()
export class EveryEventHandler {
  constructor(private readonly recorder: Recorder) {}

  @OnGenerationEvent('*')
  onAny(event: WebhookEvent) {
    return this.recorder.record('any', event);
  }
}

/** Made by a `useFactory` provider (no class token). */
export class FactoryMadeHandler {
  constructor(private readonly recorder: Recorder) {}

  @OnGenerationEvent('generation.completed', 'generation.failed')
  onTerminal(event: WebhookEvent) {
    return this.recorder.record('factory', event);
  }
}

/** Given as a `useValue` provider. */
export class ValueHandler {
  constructor(private readonly recorder: Recorder) {}

  @OnGenerationEvent('generation.completed')
  onCompleted(event: WebhookEvent) {
    return this.recorder.record('value', event);
  }
}

/** The handler providers of a test app, all writing to `recorder`. */
export function handlerProviders(recorder: Recorder) {
  return [
    { provide: Recorder, useValue: recorder },
    CompletedHandlers,
    FailedHandler,
    EveryEventHandler,
    { provide: 'FACTORY_MADE', useFactory: (r: Recorder) => new FactoryMadeHandler(r), inject: [Recorder] },
    // The same instance under a second token is still one handler.
    { provide: 'FACTORY_ALIAS', useExisting: 'FACTORY_MADE' },
    { provide: 'VALUE_MADE', useValue: new ValueHandler(recorder) },
  ];
}

/** What a `generation.completed` event runs. */
export const ON_COMPLETED = ['any', 'completed', 'completed-2', 'factory', 'value'];
/** What a `generation.failed` event runs. */
export const ON_FAILED = ['any', 'factory', 'failed'];
