import { createWebhookHandler } from '@mediagen/next';
import { after } from 'next/server';
import { studio } from '../../../../lib/mediagen';

const { client, webhookSecrets } = studio();

// Verified, de-duplicated deliveries land in SQLite (which records each event once, even across
// restarts), and reach any `client.generations.wait()` in this process through `client.events`.
export const POST = createWebhookHandler({
  secrets: webhookSecrets,
  client,
  waitUntil: after,
  onEvent: (event) => void studio().store.applyWebhook(event),
});
