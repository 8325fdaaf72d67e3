import { PassThrough } from 'node:stream';
import { DEFAULT_BASE_URL } from '@mediagen/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { clientFrom } from '../src/context';
import { createIo } from '../src/io';

afterEach(() => vi.unstubAllEnvs());

const io = () => createIo({ stdout: new PassThrough(), stderr: new PassThrough() }, { color: false });

describe('the CLI keeps its documented default address', () => {
  it('in a shell with NODE_ENV=production and no address, it still talks to the local emulator (a developer tool, not a server)', () => {
    vi.stubEnv('NODE_ENV', 'production');
    vi.stubEnv('MEDIAGEN_BASE_URL', '');
    vi.stubEnv('MEDIAGEN_API_KEY', 'svc_live_cli');
    const env = { MEDIAGEN_API_KEY: 'svc_live_cli' };
    expect(clientFrom({}, io(), env).baseUrl).toBe(DEFAULT_BASE_URL);
    expect(clientFrom({ baseUrl: 'https://api.example.test' }, io(), env).baseUrl).toBe('https://api.example.test');
    expect(clientFrom({}, io(), { ...env, MEDIAGEN_BASE_URL: 'https://env.example.test' }).baseUrl).toBe('https://env.example.test');
  });
});
