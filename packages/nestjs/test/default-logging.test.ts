import 'reflect-metadata';
import { deliver, makePayload } from '@mediagen/conformance';
import type { LoggerService } from '@nestjs/common';
import { describe, expect, it } from 'vitest';
import { MediaGenModule } from '../src';
import { PLATFORMS, startApp } from './support/nest';

const SECRET = 'whsec_nest_logging';

/** Nest's logger, recording what the module logs by level. */
class RecordingLogger implements LoggerService {
  readonly lines: Array<{ level: string; text: string }> = [];
  log() {}
  debug() {}
  verbose() {}
  warn(message: unknown) {
    this.lines.push({ level: 'warn', text: String(message) });
  }
  error(message: unknown) {
    this.lines.push({ level: 'error', text: String(message) });
  }
}

describe.each(PLATFORMS)('the default onError on Nest (%s)', (platform) => {
  it('logs a forged delivery as one warning with its code, never as an error, and never the signature or secret', async () => {
    const logger = new RecordingLogger();
    const { origin, close } = await startApp({
      platform,
      logger,
      imports: [
        MediaGenModule.forRoot({
          apiKey: 'svc_live_nest_logging',
          baseUrl: 'http://127.0.0.1:9',
          webhook: { path: 'webhooks/mediagen', secrets: SECRET },
        }),
      ],
    });
    try {
      const forged = 'v1=0000000000000000000000000000000000000000000000000000000000000000';
      const res = await deliver(`${origin}/webhooks/mediagen`, makePayload(), { secret: null, signature: `t=1,${forged}` });
      expect(res.status).toBe(401);
      const ours = logger.lines.filter((l) => l.text.includes('webhook'));
      expect(ours).toHaveLength(1);
      expect(ours[0]).toMatchObject({ level: 'warn' });
      expect(ours[0]?.text).toMatch(/refused a webhook delivery: [A-Z_]+/);
      expect(logger.lines.filter((l) => l.level === 'error')).toEqual([]);
      for (const line of logger.lines) expect(line.text).not.toMatch(/whsec_|v1=0{8}/);
    } finally {
      await close();
    }
  });
});
