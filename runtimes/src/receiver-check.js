import { SERVED_CHECK } from './cells.js';

/** Hang guard, not a measure: the emulator's three attempts at timeScale 0.01 take well under a second. */
const DELIVERY_DEADLINE_MS = 120_000;
const POLL_MS = 200;

/**
 * Judges the receiver a runtime serves at `receiverUrl`, from outside: every delivery the emulator
 * made to it was answered 200 (the emulator's own log says so), and a forged one (a recorded
 * delivery with its body changed) gets a 4xx JSON refusal. Never throws.
 */
export async function judgeServedReceiver(receiverUrl, env) {
  try {
    let rows = [];
    await until(
      async () => {
        const body = await (await fetch(`${env.baseUrl}/__emulator/deliveries`)).json();
        rows = body.deliveries.filter((row) => row.url === receiverUrl);
        return rows.length > 0 && rows.every((row) => row.outcome !== 'pending' && row.outcome !== 'retrying');
      },
      DELIVERY_DEADLINE_MS,
      'the emulator to deliver to the receiver',
    );
    const refused = rows.filter((row) => row.outcome !== 'delivered' || row.status !== 200);
    if (refused.length > 0) throw new Error(`deliveries not accepted: ${JSON.stringify(refused).slice(0, 600)}`);
    const delivery = await (await fetch(`${env.captureUrl}/deliveries/${encodeURIComponent(rows[0].generation_id)}`)).json();
    const forged = await fetch(receiverUrl, {
      method: 'POST',
      headers: delivery.headers,
      body: delivery.body.replace('completed', 'failed'),
    });
    const refusal = await forged.json().catch(() => ({}));
    if (forged.status < 400 || forged.status >= 500 || typeof refusal.error !== 'string') {
      throw new Error(`a forged delivery got ${forged.status} ${JSON.stringify(refusal).slice(0, 200)}`);
    }
    return { check: SERVED_CHECK, ok: true, detail: { delivered: rows.length, forged: forged.status } };
  } catch (error) {
    return { check: SERVED_CHECK, ok: false, error: String(error?.message ?? error).slice(0, 500) };
  }
}

/** Polls `condition` until true; throws after `deadlineMs` (a hang guard with a name). */
export async function until(condition, deadlineMs, what) {
  const deadline = Date.now() + deadlineMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
