/** What `GET /api/budget` answers when the app keeps budgets (the handler's `budget` option). */
export interface Budget {
  limited: boolean;
  credits_per_period: number | null;
  remaining_credits: number | null;
  resets_at: string | null;
  in_flight: number;
  max_concurrent: number | null;
}

/** When the budget resets, as a person reads it: a time today, else a date. */
function whenResets(at: string): string {
  const date = new Date(at);
  const sameDay = date.toDateString() === new Date().toDateString();
  return sameDay
    ? date.toLocaleTimeString('en-US', { hour: '2-digit', minute: '2-digit' })
    : date.toLocaleString('en-US', { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

/**
 * The user's own budget, beside the account's balance: what this app lets this user spend (the
 * account's wallet is shared by every user). Hidden when the app keeps no budgets.
 */
export function BudgetChip({ budget }: { budget: Budget | null }) {
  if (!budget?.limited || budget.remaining_credits === null || budget.credits_per_period === null) return null;
  const low = budget.remaining_credits < budget.credits_per_period / 10;
  return (
    <div
      className="balance budget"
      id="budget"
      data-low={low ? 'true' : 'false'}
      aria-live="polite"
      title={budget.resets_at ? `Your budget resets at ${new Date(budget.resets_at).toISOString()}` : undefined}
    >
      <span>your budget</span> {budget.remaining_credits.toLocaleString('en-US')}
      <span>
        {' '}
        of {budget.credits_per_period.toLocaleString('en-US')} left
        {budget.resets_at ? ` · resets ${whenResets(budget.resets_at)}` : ''}
      </span>
    </div>
  );
}
