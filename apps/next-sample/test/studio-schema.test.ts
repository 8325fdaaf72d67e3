import type { Model } from '@mediagen/core';
import { describe, expect, it } from 'vitest';
import { firstUsable, usableThroughApi } from '../app/studio/schema';

const model = (slug: string, extra: Record<string, unknown> = {}) =>
  ({ slug, name: slug, category: 'video', modes: [], params: {}, ...extra }) as unknown as Model;

describe('which models the studio offers', () => {
  it('a model the list marks api_supported: false is not usable; any other is (the real service may not send the field)', () => {
    expect(usableThroughApi(model('lipsync-multi', { api_supported: false }))).toBe(false);
    expect(usableThroughApi(model('video-standard'))).toBe(true);
    expect(usableThroughApi(model('video-standard', { api_supported: true }))).toBe(true);
  });

  it('the first selection skips models that cannot be used', () => {
    expect(firstUsable([model('lipsync-multi', { api_supported: false }), model('video-standard')])?.slug).toBe('video-standard');
    expect(firstUsable([model('lipsync-multi', { api_supported: false })])).toBeUndefined();
  });
});
