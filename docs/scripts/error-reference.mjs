// The error-code reference (src/reference/errors.md), generated: every code with its HTTP status,
// whether a retry can help, the SDK class that carries it and what to do. The facts (status,
// retryable, next) come from `ERROR_CODES`, the one code table of `@mediagen/core/wire`; the docs
// add their own words (code-notes.mjs: the section, when it happens). Until core exports the
// table, the notes' interim statuses and the running emulator's `next` stand in for it. Either
// way each service code is answered by the emulator and thrown by the real client, so the page
// shows the class users catch, and a table whose `retryable` the client contradicts fails the build.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MediaGenClient } from '@mediagen/core';
import { webhookRefusal } from '@mediagen/core/internal';
import * as wire from '@mediagen/core/wire';
import { startEmulator } from '@mediagen/emulator';
import { HTTP_CODES, RECEIVER_CODES, SDK_CODES, SERVICE_CODES } from './code-notes.mjs';
import { DOCS } from './workspace.mjs';

/**
 * A row: `{ code, status, retryable, next, when, kind, sdkClass?, reportedAs? }`. `kind`:
 * `service` (an HTTP answer of the service), `sdk` (the SDK made it, nothing answered),
 * `receiver` (your webhook receiver's answer to a delivery), `http` (any server's HTTP-level
 * answer) or `other` (a code of the table the docs have no words for yet).
 * `table`: `ERROR_CODES`, `{ [code]: { status: number, retryable: boolean, next: string } }`.
 */
export async function codeRows(table = wire.ERROR_CODES) {
  const notes = await codeNotes();
  const rows = table
    ? Object.entries(table).map(([code, { status, retryable, next }]) => ({
        code,
        status,
        retryable,
        next,
        kind: notes.get(code)?.kind ?? 'other',
        when: notes.get(code)?.when ?? '',
        sdkClass: notes.get(code)?.sdkClass,
      }))
    : interimRows(notes);
  const observed = await observeServiceCodes(rows.filter((row) => row.kind === 'service'));
  for (const row of rows) {
    const seen = observed.get(row.code);
    if (!seen) continue;
    if (row.retryable !== undefined && row.retryable !== seen.retryable) {
      throw new Error(`${row.code}: the table says retryable ${row.retryable}, the client says ${seen.retryable}`);
    }
    Object.assign(row, { retryable: seen.retryable, sdkClass: seen.sdkClass, reportedAs: seen.code, next: row.next ?? seen.next });
  }
  return rows;
}

/** code -> { kind, when, sdkClass?, status?, next? } from the docs' notes (status and next: interim). */
export async function codeNotes() {
  const notes = new Map();
  const add = (code, note) => notes.has(code) || notes.set(code, note);
  for (const [code, status, when] of SERVICE_CODES) add(code, { kind: 'service', status, when });
  for (const [code, sdkClass, when, next] of SDK_CODES) add(code, { kind: 'sdk', sdkClass, when, next, status: null });
  for (const code of RECEIVER_CODES) {
    const response = webhookRefusal(code);
    const body = await response.json();
    add(code, { kind: 'receiver', when: body.message, next: body.next, status: response.status });
  }
  for (const [code, when] of HTTP_CODES) add(code, { kind: 'http', when });
  return notes;
}

/** Before `ERROR_CODES`: the notes' own statuses; retryable as the spec's client guidance has it. */
function interimRows(notes) {
  return [...notes]
    .filter(([, note]) => note.kind !== 'http')
    .map(([code, { kind, when, sdkClass, status, next }]) => ({
      code,
      kind,
      when,
      sdkClass,
      status,
      next,
      retryable:
        kind === 'service' ? undefined : status === null ? ['CONNECTION_ERROR', 'TIMEOUT', 'GATE_TIMEOUT'].includes(code) : status >= 500,
    }));
}

/**
 * Each service code as a user meets it: the emulator answers it (a fault on `GET /credits`) and
 * the client, with retries off, throws. What it threw is what the page says.
 */
/** The emulator's demo account key (no secret: it exists only in the emulator). */
const KEY = 'svc_live_emulator_demo';

async function observeServiceCodes(rows) {
  const emulator = await startEmulator({ port: 0 });
  try {
    const client = new MediaGenClient({ apiKey: KEY, baseUrl: emulator.url, maxRetries: 0 });
    const seen = new Map();
    for (const { code, status } of rows) {
      const fault = await fetch(`${emulator.url}/__emulator/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ endpoint: 'credits', status, code, count: 2 }),
      });
      if (!fault.ok) throw new Error(`the emulator refused a ${status} ${code} fault: ${await fault.text()}`);
      // Read once as is (the SDK redacts anything token-shaped from what it quotes), then through the client.
      const raw = await fetch(`${emulator.url}/api/v1/credits`, { headers: { authorization: `Bearer ${KEY}` } });
      const { next } = await raw.json();
      const error = await client.credits.get().then(
        () => {
          throw new Error(`${code}: the client did not throw`);
        },
        (thrown) => thrown,
      );
      seen.set(code, { retryable: error.retryable, sdkClass: error.constructor.name, code: error.code, next });
    }
    return seen;
  } finally {
    await emulator.close();
  }
}

/** VitePress's slug of a `### CODE` heading. */
const anchor = (code) => code.toLowerCase().replace(/_/g, '-');
const cell = (text) =>
  String(text ?? '')
    .replace(/\|/g, '\\|')
    .replace(/\n/g, ' ');
const yesNo = (value) => (value ? 'yes' : 'no');
/** Prose from the table, with `<` and `>` outside code spans escaped (VitePress reads Markdown as Vue templates). */
const prose = (text) =>
  String(text)
    .split('`')
    .map((part, i) => (i % 2 === 1 ? part : part.replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\{\{/g, '&#123;&#123;')))
    .join('`');

/** What the status means for the row's kind: an SDK-side code has none, or the one your app's routes answer. */
function statusFact({ status, kind }) {
  if (status === null || status === undefined) return 'No HTTP answer: the SDK made it.';
  return kind === 'sdk' ? `Your app's routes (\`@mediagen/core/server\`) answer it as HTTP ${status}.` : `HTTP ${status}.`;
}

function section(row) {
  const lines = [`### ${row.code}`, ''];
  const facts = [statusFact(row), `Retryable: ${yesNo(row.retryable)}.`];
  if (row.sdkClass)
    facts.push(
      `Thrown as \`${row.sdkClass}\`${row.reportedAs && row.reportedAs !== row.code ? ` with \`code: '${row.reportedAs}'\`` : ''}.`,
    );
  lines.push(facts.join(' '), '');
  if (row.when) lines.push(`**When:** ${prose(row.when)}`, '');
  if (row.next) lines.push(`**What to do:** ${prose(row.next)}`, '');
  return lines.join('\n');
}

const GROUPS = [
  [
    'service',
    'Service answers',
    'What the service (or the emulator) answers to a request. `error.code` is the `error` field of the body; branch on it, never on the message.',
  ],
  ['sdk', 'Raised by the SDK', 'Made by the SDK itself, with no answer from the service, or by `verifyWebhook` on a delivery.'],
  [
    'receiver',
    'Webhook receiver answers',
    'What your receiver answers the service for a delivery it cannot take. A 4xx ends the service’s retries; a 5xx asks for another attempt.',
  ],
  ['http', 'HTTP-level answers', 'What any server of the SDK (the emulator, your app’s routes) answers for a malformed exchange.'],
  ['other', 'Other codes', 'Codes of the SDK’s table this page has no notes for yet.'],
];

export function renderPage(rows) {
  const out = [
    '---',
    'outline: [2, 3]',
    '---',
    '',
    '# Error codes',
    '',
    '<!-- Generated by docs/scripts/error-reference.mjs from @mediagen/core. Do not edit. -->',
    '',
    'Every error the SDK throws is a `MediaGenError` with `code`, `status`, `retryable`, `next` and `requestId`. ' +
      'The client already retries what is retryable (see [Errors and retries](/guide/errors)); `retryable` says whether sending the same request again later can help. ' +
      'A failed *generation* (an asynchronous failure) has its own lowercase codes: see [Errors and retries](/guide/errors#failed-generations).',
    '',
  ];
  for (const [kind, title, intro] of GROUPS) {
    const group = rows.filter((row) => row.kind === kind);
    if (group.length === 0) continue;
    out.push(`## ${title}`, '', intro, '', '| code | HTTP | retryable | class |', '| --- | --- | --- | --- |');
    for (const row of group) {
      out.push(
        `| [\`${row.code}\`](#${anchor(row.code)}) | ${row.status ?? '—'} | ${yesNo(row.retryable)} | ${row.sdkClass ? `\`${cell(row.sdkClass)}\`` : '—'} |`,
      );
    }
    out.push('');
    for (const row of group) out.push(section(row));
  }
  return `${out.join('\n').trimEnd()}\n`;
}

export async function generateErrorReference() {
  const rows = await codeRows();
  // The folder holds only this generated page, so a fresh clone does not have it.
  mkdirSync(join(DOCS, 'src', 'reference'), { recursive: true });
  writeFileSync(join(DOCS, 'src', 'reference', 'errors.md'), renderPage(rows));
  return rows.length;
}
