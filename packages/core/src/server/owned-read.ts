import { isMediaGenError } from '../errors';
import type { Generation } from '../types';
import { isPlausibleId } from '../util/plausible-id';
import { etaOf } from './eta';
import type { MediaGenContext, MediaGenHandlerOptions } from './options';
import { notFound } from './route-error';
import { userOf } from './user';

/** How the service is asked for a generation's status (live by default; the streams share theirs). */
export type StatusRead = (id: string) => Promise<Generation>;

/** The owner-checked read of the handler's options: the generation, if `context.owner` may see it; else `NotFoundError`. */
export type OwnedRead<Platform> = (id: string | undefined, context: MediaGenContext<Platform>, read?: StatusRead) => Promise<Generation>;

/**
 * One rule for who sees a generation, whatever reads its status: the status route reads live,
 * a stream's first step reads through the hub's shared reads. The owner check comes before the
 * service is asked, so another user's id never costs a read.
 */
export function ownedRead<Platform>(options: MediaGenHandlerOptions<Platform>): OwnedRead<Platform> {
  const { client, source } = options;
  const allowModels = options.allowModels ? new Set(options.allowModels) : undefined;
  const live: StatusRead = (id) => client.generations.get(id);
  const withEta = etaOf(options);
  return async (id, context, read = live) => {
    userOf(options, context);
    // A path segment that cannot be an id is an unknown id: 404, and no store or service asked.
    if (!isPlausibleId(id)) throw notFound();
    const entry = source ? await source.get(id, context.owner) : undefined;
    if (source && !entry) throw notFound();
    // The source may name it by another id (the ledger by its idempotency key too), or know it
    // only as an intent whose submit is not answered yet: then what the source knows is all there is.
    const known = (entry as { generation_id?: unknown } | undefined)?.generation_id;
    // An unknown id and another user's answer alike (spec: "deliberately indistinguishable"):
    // the service's own 404 is replaced by the same body the refusals below give.
    const generation =
      known === null
        ? (entry as Generation)
        : await read(typeof known === 'string' ? known : id).catch((error: unknown) => {
            throw isMediaGenError(error) && error.status === 404 ? notFound() : error;
          });
    if (allowModels && !allowModels.has(generation.model)) throw notFound();
    if (options.authorize && !(await options.authorize(context, generation))) throw notFound();
    // The owner stopped following it (`ledger.cancel`): the live read says so too.
    const abandoned = (entry as { abandoned?: unknown } | undefined)?.abandoned === true;
    return withEta(abandoned ? { ...generation, abandoned } : generation);
  };
}
