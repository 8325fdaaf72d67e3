'use client';
import type { GenerationEta } from '@mediagen/next/client';
import { useEffect, useState } from 'react';
import { useHydrated } from './useHydrated';

const seconds = (ms: number) => `${Math.max(1, Math.round(ms / 1000))} s`;

/**
 * The time a running generation has left, as the server estimates it (the ledger, from this
 * app's own past renders, else the contract's typical range): counted down here from the
 * moment it was made (`as_of`), always labelled as an estimate, with what it rests on. Until the
 * page is hydrated it reads the estimate as made (no clock): the server's clock and the browser's
 * are a second apart at least, and the text would not match.
 */
export function EtaLine({ eta }: { eta: GenerationEta | undefined }) {
  const hydrated = useHydrated();
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    setNow(Date.now());
    if (!eta) return;
    const timer = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, [eta]);
  if (!eta) return null;
  const since = hydrated ? Math.max(0, now - Date.parse(eta.as_of)) || 0 : 0;
  const p50 = eta.remaining_p50_ms - since;
  const p90 = eta.remaining_p90_ms - since;
  const basis = eta.basis === 'history' ? `from ${eta.samples} past render${eta.samples === 1 ? '' : 's'}` : 'typical time, no history yet';
  const text =
    eta.overdue || p90 <= 0
      ? 'Taking longer than usual'
      : p50 > 0
        ? `About ${seconds(p50)} left, at most ${seconds(p90)} (p90)`
        : `Any moment now, at most ${seconds(p90)} (p90)`;
  return (
    <p className="eta small" data-eta-basis={eta.basis} title="An estimate, not the service's word: the contract reports no progress.">
      {text} <span className="muted">· estimate, {basis}</span>
    </p>
  );
}
