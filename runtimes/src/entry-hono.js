/**
 * The Hono app as a command (Node, Bun, Deno): the cell's environment as one JSON argument;
 * `READY` on stdout once it serves on `receiverPort`, until the runner has judged it from outside.
 */
import { serveHono } from './serve-hono.js';

const args = globalThis.Deno?.args ?? globalThis.process.argv.slice(2);
const env = JSON.parse(args[0]);
await serveHono(env.receiverPort, env);
console.log('READY');
