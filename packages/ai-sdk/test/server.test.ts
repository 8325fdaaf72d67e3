/** The provider against a real emulator server on a port, through the global fetch, as an app in development runs it. */
import { startEmulator } from '@mediagen/emulator';
import { generateImage } from 'ai';
import { describe, expect, it } from 'vitest';
import { createMediaGen } from '../src/index.js';

describe('generateImage against startEmulator', () => {
  it('submits, waits by polling and downloads over HTTP', async () => {
    const emu = await startEmulator({
      port: 0,
      config: { timeScale: 0.001, accounts: [{ id: 'acct_http', tier: 'pro', balance: 100, keys: [{ key: 'svc_live_http' }] }] },
    });
    try {
      const mediagen = createMediaGen({ apiKey: 'svc_live_http', baseUrl: emu.url });
      const result = await generateImage({
        model: mediagen.image('image-pro'),
        prompt: 'a lighthouse',
        size: '1536x1024',
        providerOptions: { mediagen: { pollIntervalMs: 50 } },
      });
      expect(result.image.mediaType).toBe('image/png');
      // PNG IHDR: width and height at bytes 16-23.
      const view = new DataView(result.image.uint8Array.buffer, result.image.uint8Array.byteOffset);
      expect([view.getUint32(16), view.getUint32(20)]).toEqual([1536, 1024]);
      expect(result.providerMetadata.mediagen).toMatchObject({ images: [{ creditsUsed: 10, index: 0 }] });
    } finally {
      await emu.close();
    }
  });
});
