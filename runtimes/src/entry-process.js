/**
 * The scenario as a command (Node, Bun, Deno): the cell's environment as one JSON argument,
 * one `RESULT <json>` line per check on stdout. No `process` or `Deno` API beyond the argument,
 * so what is tested is core, not this file.
 */
import { runScenario } from './scenario.js';

const args = globalThis.Deno?.args ?? globalThis.process.argv.slice(2);
for (const result of await runScenario(JSON.parse(args[0]))) {
  console.log(`RESULT ${JSON.stringify(result)}`);
}
