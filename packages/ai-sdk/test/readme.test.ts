// The README's "Tests without the service" example, as written there.
import { createEmulator } from '@mediagen/emulator';
import { generateImage } from 'ai';
import { expect, it } from 'vitest';
import { createMediaGen } from '../src/index.js';

it('makes a picture', async () => {
  const emu = createEmulator({ config: { timeScale: 0.001 } }); // the demo account, key svc_live_emulator_demo
  const mediagen = createMediaGen({ apiKey: 'svc_live_emulator_demo', baseUrl: emu.url, fetch: emu.fetch });
  const { image } = await generateImage({
    model: mediagen.image('image-fast'),
    prompt: 'a fox',
    providerOptions: { mediagen: { pollIntervalMs: 20 } },
  });
  expect(image.mediaType).toBe('image/png');
  await emu.close();
});
