import { join } from 'node:path';
import { MediaGenClient } from '@mediagen/core';
import { createGenerationLedger, type GenerationLedger, ledgerSource } from '@mediagen/core/ledger';
import { SqliteGenerationStore } from '@mediagen/sqlite';
import { Inject, Injectable, Logger, Module, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { readConfig, type SampleConfig } from './config.js';
import { GENERATION_LEDGER, GENERATION_SOURCE, LEDGER_CLIENT, LEDGER_CLOCK, SAMPLE_CONFIG } from './tokens.js';

const logger = new Logger('GenerationLedger');

/**
 * The ledger's own client. `MediaGenModule` builds its client from options that need the ledger
 * (`routes.source`), so the ledger cannot take that one without a cycle: same key, same service.
 */
function ledgerClient({ apiKey, baseUrl }: SampleConfig): MediaGenClient {
  return new MediaGenClient({ apiKey, baseUrl });
}

function openStore({ dataDir }: SampleConfig): SqliteGenerationStore {
  return new SqliteGenerationStore({ filename: join(dataDir, 'generations.db') });
}

function buildLedger(client: MediaGenClient, store: SqliteGenerationStore, now: () => number): GenerationLedger {
  return createGenerationLedger({
    client,
    store,
    now,
    // Once per generation, when it ends (webhook, poll or refused submit, whichever comes first):
    // where an app sends its email, charges its user or starts the next step.
    onTerminal: (g) => logger.log(`${g.generation_id ?? g.idempotency_key} ${g.status}`),
    onError: (error) => logger.warn(error instanceof Error ? error.message : String(error)),
  });
}

/** Runs the ledger's reconciler while the app runs: it polls generations whose webhook never came. */
@Injectable()
class LedgerLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    @Inject(GENERATION_LEDGER) private readonly ledger: GenerationLedger,
    private readonly store: SqliteGenerationStore,
  ) {}

  onApplicationBootstrap(): void {
    this.ledger.start();
  }

  /** After the HTTP server closed (`app.close()`, or a signal with `enableShutdownHooks()`). */
  async onApplicationShutdown(): Promise<void> {
    await this.ledger.stop();
    await this.store.close();
  }
}

/** The ledger, one per app: `MediaGenModule`'s routes and the webhook handler share it. */
@Module({
  providers: [
    { provide: SAMPLE_CONFIG, useFactory: readConfig, inject: [ConfigService] },
    { provide: LEDGER_CLOCK, useValue: Date.now },
    { provide: LEDGER_CLIENT, useFactory: ledgerClient, inject: [SAMPLE_CONFIG] },
    { provide: SqliteGenerationStore, useFactory: openStore, inject: [SAMPLE_CONFIG] },
    { provide: GENERATION_LEDGER, useFactory: buildLedger, inject: [LEDGER_CLIENT, SqliteGenerationStore, LEDGER_CLOCK] },
    // Completed generations are read once per process before their links are first served (the
    // service may have forgotten them): fresh links, or `available: false`, never a dead link.
    { provide: GENERATION_SOURCE, useFactory: ledgerSource, inject: [GENERATION_LEDGER] },
    LedgerLifecycle,
  ],
  exports: [SAMPLE_CONFIG, LEDGER_CLOCK, SqliteGenerationStore, GENERATION_LEDGER, GENERATION_SOURCE],
})
export class LedgerModule {}
