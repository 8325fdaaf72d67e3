import { HONO_BASE } from './hono-app.js';
import { judgeServedReceiver, until } from './receiver-check.js';

/** Hang guard, not a measure: the emulator at timeScale 0.01 settles a generation in well under a second. */
const SETTLE_DEADLINE_MS = 120_000;

/**
 * Judges the Hono app a runtime serves at `origin`, from outside, as a browser uses it: a submit
 * through its JSON route (the emulator's 202, passed on), a read of that generation until it
 * completes, then its webhook route, where the emulator delivers that generation's signed
 * events (every one answered 200; a forged one refused 4xx). Never throws.
 */
export async function judgeHonoApp(origin, harness) {
  const results = [];
  let id;
  try {
    const response = await fetch(`${origin}${HONO_BASE}/generations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
      body: JSON.stringify({ model: 'image-fast', prompt: 'a lighthouse at dusk, runtime matrix (hono)' }),
    });
    const body = await response.json().catch(() => ({}));
    if (response.status !== 202 || typeof body.generation_id !== 'string') {
      throw new Error(`submit answered ${response.status} ${JSON.stringify(body).slice(0, 300)}`);
    }
    id = body.generation_id;
    results.push({ check: 'hono-submit', ok: true, detail: { status: response.status } });
  } catch (error) {
    results.push({ check: 'hono-submit', ok: false, error: String(error?.message ?? error).slice(0, 500) });
  }
  try {
    if (!id) throw new Error('no generation to read: the submit failed');
    let last;
    await until(
      async () => {
        const response = await fetch(`${origin}${HONO_BASE}/generations/${encodeURIComponent(id)}`);
        last = { status: response.status, body: await response.json().catch(() => ({})) };
        if (response.status !== 200 || last.body.generation_id !== id) {
          throw new Error(`read answered ${response.status} ${JSON.stringify(last.body).slice(0, 300)}`);
        }
        return last.body.status === 'completed' || last.body.status === 'failed';
      },
      SETTLE_DEADLINE_MS,
      'the generation to settle',
    );
    if (last.body.status !== 'completed') throw new Error(`read gave status ${last.body.status}`);
    results.push({ check: 'hono-read', ok: true, detail: { status: last.body.status } });
  } catch (error) {
    results.push({ check: 'hono-read', ok: false, error: String(error?.message ?? error).slice(0, 500) });
  }
  results.push(await judgeServedReceiver(harness.receiverUrl, harness.env));
  return results;
}
