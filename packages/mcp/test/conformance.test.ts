import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunningEmulator } from '@mediagen/emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binEnv, httpApp } from './support/clients';
import { emulator } from './support/emulator';
import { stdioBridge } from './support/stdio-bridge';
import { conformance } from './support/tools';

/** Scenarios this server must pass, on both transports. */
const PASS = [
  'server-initialize',
  'ping',
  'logging-set-level',
  'tools-list',
  'tools-call-error',
  'tools-call-simple-text',
  'resources-list',
  'server-sse-multiple-streams',
];

/**
 * Scenarios that test the suite's own fixture server (tools, prompts and resources named
 * `test_*` / `test://...` that the "everything" reference server has): they call what this
 * server does not have and cannot pass without adding those fixtures. Each is listed with why,
 * in the README too; the behaviour they stand for is tested on this server's own tools.
 */
export const NOT_APPLICABLE: Record<string, string> = {
  'completion-complete': 'completes a fixture prompt argument; this server has no prompts and no completions',
  'prompts-list': 'this server has no prompts',
  'prompts-get-simple': 'fixture prompt test_simple_prompt; no prompts here',
  'prompts-get-with-args': 'fixture prompt; no prompts here',
  'prompts-get-embedded-resource': 'fixture prompt; no prompts here',
  'prompts-get-with-image': 'fixture prompt; no prompts here',
  'resources-read-text': 'fixture resource test://static-text; resources here are mediagen://generations/{id} (read in tools.test.ts)',
  'resources-read-binary': 'fixture resource test://static-binary',
  'resources-templates-read': 'fixture template test://template/{id}/data; ours is read in tools.test.ts',
  'resources-subscribe': 'subscriptions are not offered (the capability is not declared): a generation is followed with wait',
  'resources-unsubscribe': 'as resources-subscribe',
  'tools-call-image': 'fixture tool test_image_content; image content from generate/get/wait is tested in tools.test.ts',
  'tools-call-audio': 'fixture tool test_audio_content; audio outputs are returned as links',
  'tools-call-embedded-resource': 'fixture tool test_embedded_resource',
  'tools-call-mixed-content': 'fixture tool test_multiple_content_types',
  'tools-call-with-logging': 'fixture tool test_tool_with_logging',
  'tools-call-with-progress': 'fixture tool test_tool_with_progress; wait sends progress (tools.test.ts)',
  'tools-call-sampling': 'fixture tool test_sampling; this server never samples',
  'tools-call-elicitation': 'fixture tool test_elicitation; generate elicits above its threshold (money.test.ts)',
  'elicitation-sep1034-defaults': 'fixture tool test_elicitation_sep1034_defaults',
  'elicitation-sep1330-enums': 'fixture tool test_elicitation_sep1330_enums',
};

/**
 * The suite is a Node 22 process running some 30 scenarios against the server (over stdio, the
 * bin behind a relay): a minute alone, several on CI's loaded 2 cores (found: 60 s missed at a
 * load of 18). A bound for a hung run, not a race: nothing in the scenarios is timed by it.
 */
const SUITE_BOUND_MS = 300_000;

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await emulator();
});
afterAll(async () => {
  await emu?.close();
});

async function judge(url: string, hostChecked: boolean) {
  const results = await conformance(url);
  const failed = (scenario: string) =>
    (results.get(scenario) ?? []).filter((c) => c.status === 'FAILURE').map((c) => `${c.id}: ${c.errorMessage}`);
  for (const scenario of PASS) {
    expect(
      results.get(scenario)?.some((c) => c.status === 'SUCCESS'),
      `${scenario} ran`,
    ).toBe(true);
    expect(failed(scenario), scenario).toEqual([]);
  }
  // Every scenario the suite ran is either passed or listed with its reason: a new one shows up here.
  const known = new Set([...PASS, ...Object.keys(NOT_APPLICABLE), 'dns-rebinding-protection']);
  expect([...results.keys()].filter((s) => !known.has(s))).toEqual([]);
  if (hostChecked) expect(failed('dns-rebinding-protection')).toEqual([]);
  return results;
}

describe('the official MCP conformance suite (@modelcontextprotocol/conformance)', () => {
  it(
    'passes every applicable server scenario over Streamable HTTP (allowedHosts set: DNS rebinding refused)',
    async () => {
      const app = await httpApp(emu.url, { identify: () => 'conformance', allowedHosts: ['127.0.0.1', 'localhost'] });
      try {
        await judge(app.url, true);
      } finally {
        await app.close();
      }
    },
    SUITE_BOUND_MS,
  );

  it(
    'passes every applicable server scenario over stdio (the bin, relayed to the suite over HTTP)',
    async () => {
      const bridge = await stdioBridge(binEnv(emu.url, join(mkdtempSync(join(tmpdir(), 'mcp-conformance-')), 'ledger.sqlite')));
      try {
        // Host checking is an HTTP matter: the relay is the test's, not the server's, so it is not judged here.
        await judge(bridge.url, false);
      } finally {
        await bridge.close();
      }
    },
    SUITE_BOUND_MS,
  );
});
