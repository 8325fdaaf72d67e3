import { createGenerationLedger, type GenerationStore, ledgerSource } from '@mediagen/core/ledger';
import { createNodeHandler } from '@mediagen/core/node';
import { createMediaGenHandler } from '@mediagen/core/server';
import { listen } from './listen.js';
import { describeRouteConformance } from './route-conformance.js';

/** A generation store for one app the suite starts; `close()`, when it has one, runs when that app closes. */
export type LedgerStoreFactory = () =>
  | (GenerationStore & { close?(): Promise<void> | void })
  | Promise<GenerationStore & { close?(): Promise<void> | void }>;

/**
 * The route suite with the app's own source: the real generation ledger (intent-first
 * submits, reads and lists per owner, webhook events applied) over a store from `store`, on
 * core's handler through its Node layer. Ownership is then decided by the ledger and the
 * store's own queries, not by the suite's in-memory stand-in. One line per store:
 * `describeLedgerRouteConformance('SQLite', () => new SqliteGenerationStore({ filename }))`.
 */
export function describeLedgerRouteConformance(name: string, store: LedgerStoreFactory): void {
  describeRouteConformance({
    name: `generation ledger on ${name} (createNodeHandler)`,
    cancels: true,
    async start(options) {
      const opened = await store();
      const ledger = createGenerationLedger({ client: options.client, store: opened });
      const handle = createNodeHandler(createMediaGenHandler({ ...options, source: ledgerSource(ledger) }));
      const server = await listen((req, res) => void handle(req, res));
      return {
        origin: server.origin,
        async close() {
          await server.close();
          await ledger.stop();
          await opened.close?.();
        },
      };
    },
  });
}
