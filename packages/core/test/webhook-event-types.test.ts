import { describe, expectTypeOf, it } from 'vitest';
import type { VerifiedWebhookEvent, WebhookEvent } from '../src/index';

// Type-level: `pnpm typecheck` (tsc over test/) fails if events stop narrowing on `type`.
describe('WebhookEvent narrows on type', () => {
  it('completed: output links are strings; failed: the error fields are required and links null', () => {
    const check = (event: WebhookEvent) => {
      if (event.type === 'generation.completed') {
        expectTypeOf(event.data.output_url).toEqualTypeOf<string>();
        expectTypeOf(event.data.status).toEqualTypeOf<'completed'>();
        // @ts-expect-error a completed event has no error code
        event.data.error_code.toUpperCase();
      } else {
        expectTypeOf(event.type).toEqualTypeOf<'generation.failed'>();
        expectTypeOf(event.data.error_code).toEqualTypeOf<string>();
        expectTypeOf(event.data.retryable).toEqualTypeOf<boolean>();
        expectTypeOf(event.data.output_url).toEqualTypeOf<null>();
      }
    };
    expectTypeOf(check).toBeFunction();
  });

  it('what verifyWebhook returns also holds an unknown event, which narrows away from the known ones', () => {
    const check = (event: VerifiedWebhookEvent) => {
      if (event.type === 'unknown') {
        expectTypeOf(event.data).toEqualTypeOf<Record<string, unknown>>();
        return;
      }
      expectTypeOf(event).toEqualTypeOf<WebhookEvent>();
      expectTypeOf(event.data.generation_id).toEqualTypeOf<string>();
    };
    expectTypeOf(check).toBeFunction();
  });
});
