/** Video through `experimental_generateVideo` from `ai`: both its one-call path and its start/status flow. */
import { APICallError } from '@ai-sdk/provider';
import { experimental_generateVideo as generateVideo } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { type Fixture, fixture } from './support.js';

const EBML = [0x1a, 0x45, 0xdf, 0xa3];
let f: Fixture | undefined;
afterEach(async () => {
  await f?.emu.close();
  f = undefined;
});

describe('experimental_generateVideo with mediagen.video()', () => {
  it('a WebM clip at the matrix size asked for; fps is a warning; credits and generation id in providerMetadata', async () => {
    f = fixture();
    const result = await generateVideo({
      model: f.mediagen.video('video-standard'),
      prompt: 'a paper boat',
      duration: 5,
      resolution: '1920x1080',
      fps: 24,
      generateAudio: false,
    });
    expect(result.video.mediaType).toBe('video/webm');
    expect([...result.video.uint8Array.subarray(0, 4)]).toEqual(EBML);
    expect(result.warnings).toEqual([{ type: 'unsupported', feature: 'fps', details: expect.any(String) }]);
    const reserves = await f.ledger('reserve');
    // 1080p without audio is 16 credits a second: the size reached the service as resolution 1080p.
    expect(reserves.map((r) => -r.amount)).toEqual([80]);
    expect(result.providerMetadata.mediagen).toMatchObject({ generationId: reserves[0]?.generation_id, creditsUsed: 80 });
  });

  it("the start/status flow (poll option): one submit under the AI SDK's own idempotency key, then status reads", async () => {
    f = fixture();
    const result = await generateVideo({
      model: f.mediagen.video('video-standard'),
      prompt: 'rain',
      duration: 5,
      poll: { intervalMs: 20 },
    });
    expect([...result.video.uint8Array.subarray(0, 4)]).toEqual(EBML);
    const meta = result.providerMetadata.mediagen as { generationId: string; idempotencyKey: string; creditsUsed: number };
    expect(meta.idempotencyKey).toMatch(/^aisdk_vid_/);
    const reserves = await f.ledger('reserve');
    expect(reserves.map((r) => r.generation_id)).toEqual([meta.generationId]);
  });

  it('a failed video is the typed APICallError in both paths, refunded, not resent', async () => {
    f = fixture();
    for (const poll of [undefined, { intervalMs: 20 }]) {
      const e = (await generateVideo({
        model: f.mediagen.video('video-standard'),
        prompt: '[[fail:rate_limited]]',
        ...(poll ? { poll } : {}),
      }).catch((x: unknown) => x)) as APICallError;
      expect(APICallError.isInstance(e)).toBe(true);
      expect([e.isRetryable, (e.data as { code: string }).code]).toEqual([false, 'rate_limited']);
    }
    expect((await f.ledger('reserve')).length).toBe(2);
    expect((await f.ledger('refund')).length).toBe(2);
  });
});
