/**
 * The scenario as a command (Node, Bun, Deno): the cell's environment as one JSON argument, one
 * `RESULT <json>` line per check on stdout, then `READY` while core's receiver goes on serving
 * the emulator's deliveries on `receiverPort` until the runner has judged them and ends it.
 */
import { runScenario } from './scenario.js';
import { serveReceiver } from './serve-receiver.js';

const args = globalThis.Deno?.args ?? globalThis.process.argv.slice(2);
const env = JSON.parse(args[0]);
await serveReceiver(env.receiverPort, env.webhookSecret);
for (const result of await runScenario(env)) {
  console.log(`RESULT ${JSON.stringify(result)}`);
}
console.log('READY');
