import { describeCancelRaceAcrossInstances } from '@mediagen/conformance';
import { MemoryGenerationStore } from '@mediagen/core/ledger';
import { RedisGateStore } from '../src/index';
import { cleanUp, connection, uniquePrefix } from './support/redis';

const prefix = uniquePrefix('cancel-race');

describeCancelRaceAcrossInstances({
  name: 'Redis',
  // No Redis ledger store: what the instances share here is the gate, where the submit waits.
  shares: 'gate',
  ledgerStores: () => [new MemoryGenerationStore(), new MemoryGenerationStore()],
  // Each instance its own connection, the same keys; a short poll (a freed slot wakes no other
  // process) and a short lapse (a stopped submit leaves the shared line a second later by default,
  // and the refill behind it would wait that long every round).
  gateStores: () => [
    new RedisGateStore({ redis: connection(), prefix, pollMs: 20, lapseMs: 100 }),
    new RedisGateStore({ redis: connection(), prefix, pollMs: 20, lapseMs: 100 }),
  ],
  close: cleanUp,
});
