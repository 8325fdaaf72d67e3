// The main job, end to end with no account: start the local emulator, submit a generation
// through the SDK, follow it to the end, and print what came back.
import { mkdir, writeFile } from 'node:fs/promises';
import { MediaGenClient } from '@mediagen/core';
import { startEmulator } from '@mediagen/emulator';

const emulator = await startEmulator({ port: 0, config: { timeScale: 0.1 } });
try {
  const client = new MediaGenClient({ apiKey: 'svc_live_emulator_demo', baseUrl: emulator.url });
  const params = { model: 'image-fast', prompt: 'a lighthouse at dusk, oil painting', aspect_ratio: '16:9', seed: 42 };
  console.log(`emulator at ${emulator.url}`);
  console.log('submitting', params);
  const generation = await client.generations.run(params, {
    intervalMs: 250,
    onUpdate: (g) => console.log(`  ${g.status.padEnd(10)} credits_used=${g.credits_used}  request_id=${g.request_id}`),
  });
  console.log('\ncompleted:');
  console.log(JSON.stringify(generation, null, 2));
  // Output links are signed and expire; download() refreshes them through a status read when needed.
  const bytes = await client.generations.download(generation);
  const file = new URL(`../demo-output/${generation.generation_id}.png`, import.meta.url);
  await mkdir(new URL('.', file), { recursive: true });
  await writeFile(file, bytes);
  console.log(`\nsaved ${bytes.length} bytes to ${file.pathname}`);
  const credits = await client.credits.get();
  console.log(`\nbalance now ${credits.balance} credits (tier ${credits.tier})`);
} finally {
  await emulator.close();
}
