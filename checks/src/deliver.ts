import { CHECK_KEY, type EmulatorOptions, startInstalledEmulator, waitFor } from './emulator';

/**
 * Submits one generation to an emulator (started from `projectDir`'s node_modules) whose webhooks
 * go to `webhookUrl`, and waits until `receivedUrl` (the app's own read-back route answering
 * `{ received: string[] }`) lists it. Also sends a forged delivery and returns its status.
 */
export async function deliverOne(
  projectDir: string,
  webhookUrl: string,
  receivedUrl: string,
  options: EmulatorOptions = {},
): Promise<{ received: boolean; forged: number }> {
  const emulator = await startInstalledEmulator(projectDir, webhookUrl, options);
  try {
    const submit = await fetch(`${emulator.url}/api/v1/generate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${CHECK_KEY}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
      body: JSON.stringify({ model: 'image-fast', prompt: 'a fox, delivered by the release check' }),
    });
    const { generation_id: id } = (await submit.json()) as { generation_id: string };
    let received = false;
    await waitFor(receivedUrl, 30_000, undefined, (res) => res.ok).catch(() => undefined);
    const deadline = Date.now() + 30_000;
    while (!received && Date.now() < deadline) {
      const body = (await (await fetch(receivedUrl)).json()) as { received?: string[] };
      received = body.received?.includes(id) ?? false;
      if (!received) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const forged = await fetch(webhookUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-signature': `sha256=${'0'.repeat(64)}` },
      body: JSON.stringify({ generation_id: id, status: 'completed', output_url: 'https://example.test/x.png' }),
    });
    return { received, forged: forged.status };
  } finally {
    await emulator.close();
  }
}
