/**
 * Runs once when the server starts: the ledger's reconciler (it polls generations whose webhook
 * never came and resends unanswered submits). Not during `next build`: the database (and its folder) is
 * created on first use.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  const { studio } = await import('./lib/mediagen');
  const app = studio();
  // `next dev` may call register() again after a reload: the instance (on globalThis) starts once.
  const started = globalThis as { __mediagenReconciler?: boolean };
  if (started.__mediagenReconciler) return;
  started.__mediagenReconciler = true;
  app.ledger.start();
  // A graceful shutdown behind a balancer (lib/shutdown.ts), with NEXT_MANUAL_SIG_HANDLE=true.
  if (process.env.NEXT_MANUAL_SIG_HANDLE) (await import('./lib/shutdown')).drainOnSignals(app);
}
