import { createStatusHandler } from '@mediagen/next';
import { asGeneration } from '../../../../lib/as-generation';
import { studio } from '../../../../lib/mediagen';

const { client } = studio();

/** How long a running generation's last news stands before the route asks the service itself. */
const FRESH_MS = 10_000;

// What useGeneration polls: the webhook's record first; the service only for a generation with
// no news for a while (the fallback when a webhook is late or never comes), recorded as a poll.
export const GET = createStatusHandler({
  client,
  lookup: (id) => {
    const known = studio().store.known(id, FRESH_MS);
    return known && asGeneration(known);
  },
  onRead: (generation) => studio().store.applyPoll(generation),
});
