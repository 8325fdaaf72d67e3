import type { GenerationLedger, ReconcileReport } from '@mediagen/core/ledger';
import { SpanStatusCode, type Tracer } from '@opentelemetry/api';
import { tracerOf } from './tracer';

/** The report's counts, each as a span attribute. */
const COUNTS: readonly (keyof ReconcileReport)[] = ['due', 'followed', 'polled', 'resent', 'notified', 'errors'];

/**
 * Records each reconciler pass of a generation ledger (`reconcile()`, and so every pass
 * `start()` runs) as a `mediagen.ledger.reconcile` span with the pass's report:
 * `mediagen.ledger.due`, `.followed`, `.polled` (status reads), `.resent` (intents sent again),
 * `.notified` (handed to `onTerminal`) and `.errors` (failures reported to `onError`). The
 * client's own spans (`instrument(client)`, `mediagenTelemetry()`) nest under it. A pass with
 * errors keeps an unset status (the ledger recovers from them); a pass that throws is an error.
 * Returns the same ledger.
 */
export function traceLedger<L extends GenerationLedger>(ledger: L, options: { tracer?: Tracer } = {}): L {
  const tracer = tracerOf(options.tracer);
  // Replaced on the object: start()'s passes call `ledger.reconcile()`, so they are traced too.
  const reconcile = ledger.reconcile.bind(ledger);
  ledger.reconcile = () =>
    tracer.startActiveSpan('mediagen.ledger.reconcile', async (span) => {
      try {
        const report = await reconcile();
        for (const count of COUNTS) span.setAttribute(`mediagen.ledger.${count}`, report[count]);
        return report;
      } catch (error) {
        const code = (error as { code?: unknown } | null)?.code;
        span.setStatus({ code: SpanStatusCode.ERROR, message: typeof code === 'string' ? code : 'error' });
        throw error;
      } finally {
        span.end();
      }
    });
  return ledger;
}
