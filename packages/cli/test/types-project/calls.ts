// Checked by test/types.test.ts against the declarations `mediagen types` writes from the
// emulator's catalog. Every `@ts-expect-error` must stay an error: tsc fails on an unused one.
import { MediaGenClient } from '@mediagen/core';

const client = new MediaGenClient({ apiKey: 'svc_live_typecheck_only' });

export async function valid(): Promise<void> {
  await client.generations.create({
    model: 'image-pro',
    prompt: 'a leaf',
    size: '2048x2048',
    quality: 'high',
    resolution: '2K',
    reference_images: ['https://example.com/a.png'],
    number_results: 2,
    seed: 7,
  });
  await client.generations.create({ model: 'image-fast', prompt: 'a fox', aspect_ratio: '16:9', enhance: true, negative_prompt: 'blur' });
  await client.generations.estimate({
    model: 'video-standard',
    prompt: 'x',
    duration: 10,
    resolution: '1080p',
    aspect_ratio: '21:9',
    audio: false,
  });
  await client.generations.estimate({
    model: 'video-standard',
    prompt: 'x',
    aspect_ratio: '21:9 1080p',
    input_image: 'https://example.com/f.png',
  });
  await client.generations.run({ model: 'audio-voice', prompt: 'hello', duration: 30, input_audio: 'https://example.com/v.wav' });
  await client.generations.create({ model: 'image-upscale', input_image: 'https://example.com/p.jpg', resolution: '4k' });
  await client.generations.create({ model: 'legacy-image', prompt: 'x', number_results: 2, seed: 123456 });
}

export async function invalid(): Promise<void> {
  // @ts-expect-error the issue's example: an off-list size (and no prompt)
  await client.generations.create({ model: 'image-pro', size: '1234x777' });
  // @ts-expect-error an off-list size
  await client.generations.create({ model: 'image-pro', prompt: 'x', size: '1234x777' });
  // @ts-expect-error not a quality tier of image-pro
  await client.generations.create({ model: 'image-pro', prompt: 'x', quality: 'best' });
  // @ts-expect-error image-pro has no enhance
  await client.generations.create({ model: 'image-pro', prompt: 'x', enhance: true });
  // @ts-expect-error duration is not a param of an image model
  await client.generations.create({ model: 'image-fast', prompt: 'x', duration: 5 });
  // @ts-expect-error number_results goes to 4
  await client.generations.create({ model: 'image-fast', prompt: 'x', number_results: 5 });
  // @ts-expect-error image-fast needs a prompt
  await client.generations.create({ model: 'image-fast' });
  // @ts-expect-error video-standard renders 5 or 10 seconds
  await client.generations.estimate({ model: 'video-standard', prompt: 'x', duration: 7 });
  // @ts-expect-error not one of the video resolutions
  await client.generations.estimate({ model: 'video-standard', prompt: 'x', resolution: '4k' });
  // @ts-expect-error audio-voice takes 2 to 30 seconds
  await client.generations.run({ model: 'audio-voice', prompt: 'x', duration: 31 });
  // @ts-expect-error image-upscale takes no prompt
  await client.generations.create({ model: 'image-upscale', prompt: 'x', input_image: 'https://example.com/p.jpg' });
  // @ts-expect-error legacy-image makes 1 or 2 results
  await client.generations.create({ model: 'legacy-image', prompt: 'x', number_results: 3 });
  // @ts-expect-error no such model on this account
  await client.generations.create({ model: 'image-ultra', prompt: 'x' });
}
