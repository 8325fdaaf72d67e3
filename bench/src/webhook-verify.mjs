// Row 2. Webhook verification of a 1 KB and a 64 KB signed body: @mediagen/core's
// verifyWebhook vs the floor (node:crypto createHmac + timingSafeEqual, synchronous, then
// JSON.parse: the same work by hand) and vs the verifiers people would otherwise use, each
// verifying a body signed by its own scheme with its own library's helper. Plus the Web
// Crypto path alone (what edge runtimes get), next to a Web Crypto floor.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import * as core from '@mediagen/core';
import OpenAI from 'openai';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { Webhook as SvixWebhook } from 'svix';
import { fmt, interleave, repeat, repeatSync, stats } from './measure.mjs';

export const PEERS = ['standardwebhooks', 'svix', 'stripe', 'openai'];
const FLOOR_TARGET = 1.5;

/** A realistic generation.completed payload padded to exactly `size` bytes. */
export function payload(size) {
  const base = {
    generation_id: '3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f',
    status: 'completed',
    model: 'image-fast',
    output_url: 'https://api.example.test/api/v1/output/3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f/1999999999/abcdef0123456789/0/image.png',
    output_urls: ['https://api.example.test/api/v1/output/3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f/1999999999/abcdef0123456789/0/image.png'],
    credits_charged: 4,
    duration_ms: 6120,
    completed_at: '2025-01-01T00:00:06.120Z',
    padding: '',
  };
  const without = JSON.stringify(base).length;
  base.padding = 'x'.repeat(Math.max(0, size - without));
  const s = JSON.stringify(base);
  if (s.length !== size) throw new Error(`payload is ${s.length} bytes, wanted ${size}`);
  return s;
}

/**
 * Core's Web Crypto path, as an edge runtime runs it: one `createHmac('web')` held for the
 * run (a webhook handler holds one for its life, with its imported keys).
 */
async function edgeVerifier() {
  const testing = await import('@mediagen/core/testing');
  const hmac = testing.createHmac('web');
  return {
    how: "verifyWebhookWith(createHmac('web')) from @mediagen/core/testing",
    enter() {},
    leave() {},
    verifyWebhook: (input) => testing.verifyWebhookWith(hmac, input),
  };
}

async function measureSize(size, { rounds, edge }) {
  const body = payload(size);
  const raw = Buffer.from(body); // what node:http hands a receiver
  const ops = size <= 1024 ? 50 : 10;

  // Ours: the spec's scheme, sha256=<hex HMAC of the raw bytes>.
  const ourSecret = `whsec_${randomBytes(24).toString('hex')}`;
  const ourSignature = `sha256=${createHmac('sha256', ourSecret).update(raw).digest('hex')}`;
  if (typeof core.signWebhook === 'function') {
    const viaCore = await core.signWebhook(raw, ourSecret);
    if (viaCore !== ourSignature) throw new Error('signWebhook disagrees with the documented scheme');
  }

  // Standard Webhooks (and OpenAI, which follows it): base64 secret with whsec_ prefix.
  const swSecret = `whsec_${randomBytes(24).toString('base64')}`;
  const msgId = 'msg_2b7fQ0bench';
  const now = new Date();
  const ts = String(Math.floor(now.getTime() / 1000));
  const sw = new StandardWebhook(swSecret);
  const swHeaders = { 'webhook-id': msgId, 'webhook-timestamp': ts, 'webhook-signature': sw.sign(msgId, now, body) };
  const svix = new SvixWebhook(swSecret);
  const svixHeaders = { 'svix-id': msgId, 'svix-timestamp': ts, 'svix-signature': svix.sign(msgId, now, body) };
  const openai = new OpenAI({ apiKey: 'sk-bench', webhookSecret: swSecret });
  const oaHeaders = { 'webhook-id': msgId, 'webhook-timestamp': ts, 'webhook-signature': sw.sign(msgId, now, body) };

  // Stripe: its own t=...,v1=... header, made by its own test helper.
  const stripe = new Stripe('sk_test_bench');
  const stripeSecret = `whsec_${randomBytes(24).toString('hex')}`;
  const stripeHeader = stripe.webhooks.generateTestHeaderString({ payload: body, secret: stripeSecret });

  // Web Crypto floor: the key imported once (as core caches it), verify, then parse.
  const webKey = await crypto.subtle.importKey('raw', new TextEncoder().encode(ourSecret), { name: 'HMAC', hash: 'SHA-256' }, false, [
    'verify',
  ]);
  const expectedBytes = Buffer.from(ourSignature.slice(7), 'hex');

  let sink = 0;
  const floor = () => {
    const expected = Buffer.from(ourSignature.slice(7), 'hex');
    const mac = createHmac('sha256', ourSecret).update(raw).digest();
    if (mac.length !== expected.length || !timingSafeEqual(mac, expected)) throw new Error('floor: bad signature');
    sink += JSON.parse(raw.toString()).credits_charged;
  };
  const check = (event) => {
    if (event.data?.credits_charged !== 4) throw new Error('verifier returned no payload');
    sink += 1;
  };
  const hasOurs = typeof core.verifyWebhook === 'function';
  const cases = {
    floor: () => repeatSync(ops, floor),
    'floor-hmac-only': () =>
      repeatSync(ops, () => {
        const expected = Buffer.from(ourSignature.slice(7), 'hex');
        const mac = createHmac('sha256', ourSecret).update(raw).digest();
        if (!timingSafeEqual(mac, expected)) throw new Error('bad');
      }),
    ...(hasOurs
      ? {
          ours: () => repeat(ops, async () => check(await core.verifyWebhook({ body: raw, signature: ourSignature, secrets: ourSecret }))),
          'ours-web': async () => {
            edge.enter();
            try {
              await repeat(ops, async () => check(await edge.verifyWebhook({ body: raw, signature: ourSignature, secrets: ourSecret })));
            } finally {
              edge.leave();
            }
          },
        }
      : {}),
    'web-floor': () =>
      repeat(ops, async () => {
        const ok = await crypto.subtle.verify('HMAC', webKey, expectedBytes, raw);
        if (!ok) throw new Error('web floor: bad signature');
        sink += JSON.parse(raw.toString()).credits_charged;
      }),
    standardwebhooks: () =>
      repeatSync(ops, () => {
        sink += sw.verify(raw, swHeaders).credits_charged;
      }),
    svix: () =>
      repeatSync(ops, () => {
        svix.verify(raw, svixHeaders);
        sink += 1;
      }),
    stripe: () =>
      repeat(ops, async () => {
        sink += (await stripe.webhooks.constructEventAsync(raw, stripeHeader, stripeSecret)).credits_charged;
      }),
    openai: () =>
      repeat(ops, async () => {
        sink += (await openai.webhooks.unwrap(body, oaHeaders, swSecret)).credits_charged;
      }),
  };
  // Every verifier must accept its own body before anything is timed.
  for (const fn of Object.values(cases)) await fn();
  const { samples } = await interleave({ cases, rounds, warmup: 1, opsPerSample: ops });
  if (!sink) throw new Error('no work done');
  const per = (a, b) => stats(samples[a].map((x, i) => x / samples[b][i]));
  const t = Object.fromEntries(Object.keys(samples).map((k) => [k, stats(samples[k])]));
  return { size, ops, hasOurs, t, samples, per };
}

export async function run({ quick }) {
  const rounds = quick ? 15 : 60;
  const edge = typeof core.verifyWebhook === 'function' ? await edgeVerifier() : null;
  const rows = [];
  const raw = { rounds, edgeHow: edge?.how ?? null, sizes: {} };
  for (const size of [1024, 64 * 1024]) {
    const label = size === 1024 ? '1 KB' : '64 KB';
    const m = await measureSize(size, { rounds, edge });
    const vsOurs = m.hasOurs ? Object.fromEntries(PEERS.map((p) => [p, m.per(p, 'ours')])) : {};
    const peerCells = Object.fromEntries(
      PEERS.map((p) => [p, m.hasOurs ? `${fmt.time(m.t[p].median)} (${vsOurs[p].median.toFixed(1)}× ours)` : fmt.time(m.t[p].median)]),
    );
    raw.sizes[label] = {
      ops: m.ops,
      timesMs: m.t,
      ...(m.hasOurs
        ? {
            oursToFloor: m.per('ours', 'floor'),
            oursToHmacOnlyFloor: m.per('ours', 'floor-hmac-only'),
            peerToOurs: vsOurs,
            edgeToWebFloor: m.per('ours-web', 'web-floor'),
            edgeToNodeFloor: m.per('ours-web', 'floor'),
          }
        : {}),
      samples: m.samples,
    };
    if (!m.hasOurs) {
      rows.push({
        id: `webhook-${size}`,
        what: `Webhook verify ${label} (Node)`,
        ours: 'not measured: verifyWebhook missing from @mediagen/core',
        peers: peerCells,
        floor: fmt.timeRange(m.t.floor),
        ratio: 'n/a',
        target: `≤ ${FLOOR_TARGET}× floor, faster than every peer`,
        status: 'not measured',
      });
      continue;
    }
    const toFloor = m.per('ours', 'floor');
    const slower = PEERS.filter((p) => vsOurs[p].median <= 1);
    const pass = toFloor.median <= FLOOR_TARGET && slower.length === 0;
    rows.push({
      id: `webhook-${size}`,
      what: `Webhook verify ${label} (Node)`,
      ours: fmt.timeRange(m.t.ours),
      peers: peerCells,
      floor: fmt.timeRange(m.t.floor),
      ratio: `${fmt.ratio(toFloor)} floor`,
      target: `≤ ${FLOOR_TARGET}× floor, faster than every peer`,
      status: pass ? 'pass' : 'miss',
      note:
        `floor = createHmac + timingSafeEqual + JSON.parse (HMAC alone: ${fmt.time(m.t['floor-hmac-only'].median)}, ours ${m.per('ours', 'floor-hmac-only').median.toFixed(2)}× that)` +
        (slower.length ? `; not faster than ${slower.join(', ')}` : ''),
    });
    const e2w = m.per('ours-web', 'web-floor');
    rows.push({
      id: `webhook-${size}-edge`,
      what: `Webhook verify ${label}, Web Crypto path alone (edge)`,
      ours: fmt.timeRange(m.t['ours-web']),
      peers: Object.fromEntries(PEERS.map((p) => [p, `${(m.t[p].median / m.t['ours-web'].median).toFixed(1)}× ours-web`])),
      floor: `${fmt.timeRange(m.t['web-floor'])} (Web Crypto)`,
      ratio: `${fmt.ratio(e2w)} Web Crypto floor; ${m.per('ours-web', 'floor').median.toFixed(2)}× Node floor`,
      target: 'none set (report)',
      status: 'info',
      note: `Web Crypto floor = crypto.subtle.verify with the key imported once + JSON.parse; forced by: ${edge.how}`,
    });
  }
  return { rows, raw };
}
