/** Runs once when the server starts: the polling fallback for generations whose webhook never came. */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  const { studio } = await import('./lib/mediagen');
  const { startPoller } = await import('./lib/poller');
  const app = studio();
  // The store opens on the first tick (or the first request), not here.
  startPoller(app.client, () => app.store);
}
