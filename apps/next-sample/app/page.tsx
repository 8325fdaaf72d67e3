import type { Model } from '@mediagen/core';
import type { StudioGeneration } from '../lib/generation';
import { studio } from '../lib/mediagen';
import { listGenerations } from './actions';
import { Studio } from './studio/Studio';

// Per request: the account's models, its balance and the user's generations are live.
export const dynamic = 'force-dynamic';

export default async function Page({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  // `?stream=off`: the cards poll instead of following the event stream (the bench's baseline).
  const stream = (await searchParams).stream !== 'off';
  const { client, handler } = studio();
  // Whether this app keeps per-user budgets (MEDIAGEN_USER_CREDITS): the page then shows the user's.
  const budgets = handler.route('GET', '/api/budget') !== undefined;
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
  // This user's only (proxy.ts set their cookie on this very request if it was their first).
  const mine = await listGenerations();
  const generations = (mine.data?.generations ?? []) as unknown as StudioGeneration[];
  return (
    <Studio models={models} initialBalance={balance} initialGenerations={generations} problem={problem} stream={stream} budgets={budgets} />
  );
}
