import type { Model } from '@mediagen/core';
import { studio } from '../lib/mediagen';
import { Studio } from './studio/Studio';

// Per request: the account's models, its balance and the app's generations are live.
export const dynamic = 'force-dynamic';

export default async function Page() {
  const { client, store } = studio();
  let models: Model[] = [];
  let balance: number | null = null;
  let problem: string | null = null;
  try {
    const [list, credits] = await Promise.all([client.models.list(), client.credits.get()]);
    models = list.models;
    balance = credits.balance;
  } catch (error) {
    problem = error instanceof Error ? error.message : 'The service could not be reached.';
  }
  return <Studio models={models} initialBalance={balance} initialGenerations={store.list()} problem={problem} />;
}
