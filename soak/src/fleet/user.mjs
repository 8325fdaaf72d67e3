// One simulated browser user of the fleet: its own cookie (given by the studio's first answer),
// submits through the balancer with one Idempotency-Key per intent (resent with the same key
// when an answer is lost, after looking at its list as the page would), and follows each
// generation on its event stream with a real EventSource's reconnect behaviour: `Last-Event-ID`
// and the server's `retry:` after a cut, a refused open (any non-200: the EventSource fails)
// retried like the studio's hook does. Everything it sees is recorded for the invariants.
import { createHash, randomUUID } from 'node:crypto';

const TERMINAL = new Set(['completed', 'failed']);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** What every user shares: the balancer, the clock of phases, the bounds. */
export function createUser({ index, base, phaseOf, stopSubmitting, thinkMs, record }) {
  let cookie;
  const me = `user-${index}`;
  const view = { doing: 'arriving', name: me, owner: undefined, accepted: new Map(), foreign: [], listMisses: [], lists: 0, errors: [] };

  /**
   * The key as the user's list shows it: the handler scopes a browser's Idempotency-Key to its
   * user (hex SHA-256 of the owner and the key: core's server/actions.ts), and the owner here is
   * the cookie's user id (apps/next-sample/lib/user.ts).
   */
  const listed = (key) =>
    createHash('sha256')
      .update(`${cookie?.split('=')[1]}\n${key}`)
      .digest('hex');
  const headers = (extra = {}) => ({ ...(cookie && { cookie }), ...extra });
  async function call(path, init = {}) {
    const response = await fetch(`${base}${path}`, {
      ...init,
      headers: headers(init.headers),
      signal: init.signal ?? AbortSignal.timeout(150_000),
    });
    const set = response.headers.get('set-cookie');
    if (set && !cookie) cookie = set.split(';')[0];
    return response;
  }

  /** The user's list as the page reads it; checks it holds only this user's, and every accepted one. */
  async function list() {
    for (let attempt = 0; attempt < 20; attempt++) {
      const response = await call('/api/generations?limit=100').catch(() => undefined);
      const generations =
        response?.status === 200
          ? await response.json().then(
              (b) => b.generations,
              () => undefined,
            )
          : undefined;
      if (generations) {
        view.lists++;
        for (const g of generations) {
          const owner = g.generation_id ? record.ownerOf(g.generation_id) : undefined;
          if (owner !== undefined && owner !== me) view.foreign.push({ where: 'list', id: g.generation_id, owner });
        }
        const keys = new Set(generations.map((g) => g.idempotency_key));
        for (const [key, entry] of view.accepted) if (!keys.has(listed(key))) view.listMisses.push({ key, at: Date.now(), id: entry.id });
        return generations;
      }
      if (response && !response.bodyUsed) await response.body?.cancel().catch(() => {});
      await sleep(500);
    }
    view.errors.push('list: no 200 in 20 tries');
    return [];
  }

  /**
   * One intent, submitted until the service's 202 comes back through the balancer. A lost answer
   * (the instance died, the balancer had none, a 5xx) is looked up in the list first: listed, it is
   * an interrupted intent the ledger carries on (followed there until final); else resent, same key.
   */
  async function submit(n) {
    const key = `fleet-${me}-${n}-${randomUUID()}`;
    const body = JSON.stringify({ model: 'image-fast', prompt: `fleet ${me} ${n}` });
    const started = Date.now();
    const phase = phaseOf(started);
    let interrupted;
    for (let attempt = 0; attempt < 60; attempt++) {
      view.doing = `submit ${n} attempt ${attempt}`;
      const response = await call('/api/generations', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': key },
        body,
      }).catch((error) => ({ status: 0, error }));
      // A 202 whose body was cut on the way is an answer lost like any other: resent with the key.
      const id =
        response.status === 202
          ? await response.json().then(
              (b) => b.generation_id,
              () => undefined,
            )
          : undefined;
      if (id) {
        const entry = { key, id, phase, submitMs: Date.now() - started, acceptedAt: Date.now(), attempts: attempt + 1 };
        view.accepted.set(key, entry);
        record.own(id, me);
        // Never listed at any failure: the ledger had no intent (the request reached no instance,
        // or was refused before its intent was written), so this was a resubmit, not an interrupted intent.
        if (interrupted) record.resubmitted.push({ ...interrupted, key, id, acceptedAt: Date.now() });
        return entry;
      }
      const status = response.status === 202 ? 0 : response.status;
      let text = '';
      if (response.text && !response.bodyUsed) text = await response.text().catch(() => '');
      if (status >= 400 && status < 500) {
        view.errors.push(`submit ${status}: ${text.slice(0, 200)}`);
        return undefined;
      }
      record.lostAnswers.push({ status, at: Date.now(), phase, code: /"error":"(\w+)"/.exec(text)?.[1] ?? response.error?.cause?.code });
      // Listed already? Then the ledger holds the intent: it is followed to final by the list.
      const found = (await list()).find((g) => g.idempotency_key === listed(key));
      if (found) {
        const since = Date.now();
        interrupted ??= { failedAt: since, status };
        const final = await followList(key, since);
        if (final?.generation_id) {
          const entry = {
            key,
            id: final.generation_id,
            phase,
            submitMs: Date.now() - started,
            acceptedAt: Date.now(),
            viaList: true,
            attempts: attempt + 1,
          };
          view.accepted.set(key, entry);
          record.own(final.generation_id, me);
          record.interrupted.push({
            ...interrupted,
            key,
            id: final.generation_id,
            finalAt: final.at,
            listedThroughout: final.listedThroughout,
          });
          entry.terminal = final.status;
          entry.terminalAt = final.at;
          entry.streams = [];
          return entry;
        }
      }
      interrupted ??= { failedAt: Date.now(), status };
      await sleep(500);
    }
    view.errors.push(`submit ${key}: no 202 in 60 tries`);
    return undefined;
  }

  /** An interrupted intent, read from the list every 500 ms until terminal (bounded: 90 s); listed on every read? */
  async function followList(key, since) {
    let listedThroughout = true;
    view.doing = `follow ${key} by the list`;
    while (Date.now() - since < 90_000) {
      const g = (await list()).find((x) => x.idempotency_key === listed(key));
      if (!g) listedThroughout = false;
      else if (TERMINAL.has(g.status)) return { ...g, at: Date.now(), listedThroughout };
      await sleep(500);
    }
    return { listedThroughout, generation_id: undefined };
  }

  /** The generation's event stream as an EventSource follows it, to its terminal event (bounded: 120 s). */
  async function follow(entry) {
    const { id } = entry;
    let lastEventId = '';
    let retryMs = 3_000; // the browser's default until the server says otherwise
    const connections = [];
    const started = Date.now();
    entry.streams = connections;
    while (Date.now() - started < 120_000) {
      view.doing = `follow ${id} connection ${connections.length}`;
      const connection = { at: Date.now(), status: 0, servedBy: undefined, events: 0, end: undefined };
      connections.push(connection);
      let response;
      try {
        response = await call(`/api/generations/${encodeURIComponent(id)}/events`, {
          headers: { accept: 'text/event-stream', ...(lastEventId && { 'last-event-id': lastEventId }) },
          signal: AbortSignal.timeout(120_000),
        });
      } catch {
        connection.end = 'refused';
        await sleep(retryMs);
        continue;
      }
      connection.status = response.status;
      connection.servedBy = response.headers.get('x-served-by') ?? undefined;
      if (response.status === 204) {
        connection.end = 'no-content';
        return; // the server says the browser holds the terminal state: an EventSource stops
      }
      if (response.status !== 200 || !response.headers.get('content-type')?.startsWith('text/event-stream')) {
        // A real EventSource fails on it; the page's hook polls and opens the stream again later.
        await response.body?.cancel().catch(() => {});
        connection.end = 'refused';
        await sleep(retryMs);
        continue;
      }
      let buffer = '';
      const decoder = new TextDecoder();
      try {
        for await (const chunk of response.body) {
          buffer += decoder.decode(chunk, { stream: true });
          let cut;
          while ((cut = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, cut);
            buffer = buffer.slice(cut + 2);
            let data;
            let type = 'message';
            for (const line of block.split('\n')) {
              if (line.startsWith('retry:')) retryMs = Number(line.slice(6).trim()) || retryMs;
              else if (line.startsWith('id:')) lastEventId = line.slice(3).trim();
              else if (line.startsWith('event:')) type = line.slice(6).trim();
              else if (line.startsWith('data:')) data = (data === undefined ? '' : `${data}\n`) + line.slice(5).replace(/^ /, '');
            }
            if (data === undefined) continue;
            connection.events++;
            if (type === 'error') {
              connection.errorEvent = data.slice(0, 200);
              continue;
            }
            const g = JSON.parse(data);
            if (g.generation_id !== id)
              view.foreign.push({ where: 'stream', id: g.generation_id, owner: record.ownerOf(g.generation_id), wanted: id });
            if (TERMINAL.has(g.status)) {
              entry.terminal = g.status;
              entry.terminalAt = Date.now();
              const doneAt = Date.parse(g.completed_at ?? g.failed_at ?? g.updated_at ?? '');
              if (Number.isFinite(doneAt)) entry.completionToClientMs = entry.terminalAt - doneAt;
            }
          }
        }
        connection.end = entry.terminal ? 'terminal' : 'cut';
      } catch {
        connection.end = 'cut';
      }
      connection.endAt = Date.now();
      if (entry.terminal) return;
      await sleep(retryMs);
    }
    view.errors.push(`stream ${id}: no terminal event in 120 s`);
  }

  async function run() {
    try {
      await loop();
    } catch (error) {
      view.errors.push(`run: ${error?.stack ?? error}`);
    }
    view.doing = 'done';
  }

  async function loop() {
    // The first answer gives the browser its user (proxy.ts sets the cookie).
    await list();
    for (let n = 0; !stopSubmitting(); n++) {
      const entry = await submit(n);
      if (entry && !entry.terminal) await follow(entry);
      await list();
      if (stopSubmitting()) break;
      view.doing = 'think';
      await sleep(thinkMs());
    }
  }

  return { view, run, list, listed };
}
