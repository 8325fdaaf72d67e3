import type { GenerationEta } from '../ledger/eta';
import type { Generation } from '../types';
import type { MediaGenHandlerOptions } from './options';

/** Adds `eta` to a running generation as the app's provider (or the source) estimates it. */
export type WithEta = (generation: Generation) => Generation;

const running = (status: string | undefined) => status === 'pending' || status === 'processing';

/**
 * The handler's `eta` option, else its source's (`ledgerSource(ledger)` passes `ledger.eta`): a
 * running generation read or streamed gets its estimate of time remaining as an `eta` field. A
 * provider that throws, or answers something that is not an estimate, adds nothing: an estimate
 * is a nicety, never a reason for a read or a stream to fail.
 */
export function etaOf<Platform>(options: MediaGenHandlerOptions<Platform>): WithEta {
  const provider = options.eta ?? (options.source?.eta ? (g: Generation) => options.source?.eta?.(g) : undefined);
  if (!provider) return (generation) => generation;
  return (generation) => {
    if (!running(generation?.status) || 'eta' in generation) return generation;
    let eta: GenerationEta | undefined;
    try {
      eta = provider(generation) as GenerationEta | undefined;
    } catch {
      return generation;
    }
    return eta && typeof eta === 'object' && eta.estimate === true ? { ...generation, eta } : generation;
  };
}
