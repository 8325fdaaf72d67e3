// Runs @mediagen/emulator in its own process (so load, clients and the emulator never share an
// event loop), configured by BENCH_EMULATOR_CONFIG. Answers IPC: memory (after full GCs), close.
import { startEmulator } from '@mediagen/emulator';

const config = JSON.parse(process.env.BENCH_EMULATOR_CONFIG ?? '{}');
const emulator = await startEmulator({ port: 0, host: '127.0.0.1', config });

function memory() {
  if (typeof globalThis.gc === 'function') for (let i = 0; i < 3; i++) globalThis.gc();
  const m = process.memoryUsage();
  return {
    rss: m.rss,
    heapUsed: m.heapUsed,
    heapTotal: m.heapTotal,
    external: m.external,
    arrayBuffers: m.arrayBuffers,
    gc: typeof globalThis.gc === 'function',
  };
}

process.on('message', async (msg) => {
  try {
    if (msg.cmd === 'memory') process.send({ id: msg.id, result: memory() });
    else if (msg.cmd === 'close') {
      await emulator.close();
      process.send({ id: msg.id, result: true });
    } else process.send({ id: msg.id, error: `unknown command ${msg.cmd}` });
  } catch (e) {
    process.send({ id: msg.id, error: String(e?.stack ?? e) });
  }
});
process.on('disconnect', () => process.exit(0));
process.send({ ready: true, url: emulator.url });
