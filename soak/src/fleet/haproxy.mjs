// HAProxy from Debian in front of the fleet: installed when missing (scripts/ensure-services.mjs
// haproxy: apt-get as root), its config generated here, run in the foreground as the soak's child.
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ENSURE = fileURLToPath(new URL('../../../scripts/ensure-services.mjs', import.meta.url));
const onPath = () => spawnSync('sh', ['-c', 'command -v haproxy'], { stdio: 'ignore' }).status === 0;

export function ensureHaproxy() {
  if (!onPath()) spawnSync(process.execPath, [ENSURE, 'haproxy'], { stdio: 'inherit' });
  if (!onPath()) throw new Error('haproxy is missing and could not be installed (apt-get install -y haproxy, as root)');
}

/**
 * The settings that matter for event streams (docs/src/guide/production.md says why, one by one):
 * HTTP mode, round robin, a health check on the handler's GET /api/health (a draining instance
 * answers 503 and leaves the rotation; open streams are NOT cut when a server goes down:
 * no `on-marked-down shutdown-sessions`), idle timeouts above the streams' 15 s heartbeat, a check timeout above a busy instance's answer time,
 * a long server timeout for a submit waiting on the account gate, and a refused stream (a
 * draining instance's 503) or a refused connection retried once on another server
 * (`retry-on` + `redispatch`), never a POST (a submit is not replayed by the balancer).
 */
export function haproxyConfig({ port, servers, statsSocket }) {
  return `global
  maxconn 4000
  stats socket ${statsSocket} mode 600 level admin

defaults
  mode http
  timeout connect 2s
  timeout client 60s
  timeout server 120s
  timeout http-request 10s
  timeout http-keep-alive 10s
  timeout queue 30s
  # A check answered slower than this fails: under load a busy instance's health answer can take
  # over a second, and with the default (inter, 500 ms) busy instances all leave the rotation
  # together and the balancer answers 503 with none (seen in the full fleet run).
  timeout check 3s
  retries 2
  option redispatch 1
  retry-on conn-failure empty-response 503

frontend fleet
  bind 127.0.0.1:${port}
  option forwardfor
  default_backend studio

backend studio
  balance roundrobin
  http-request disable-l7-retry if METH_POST
  option httpchk GET /api/health
  http-check expect status 200
  default-server inter 500ms fastinter 250ms downinter 500ms fall 2 rise 2
  http-response set-header X-Served-By %s
${servers.map(({ name, port: p }) => `  server ${name} 127.0.0.1:${p} check`).join('\n')}
`;
}

export async function startHaproxy({ dir, port, servers }) {
  ensureHaproxy();
  const file = join(dir, 'haproxy.cfg');
  const statsSocket = join(dir, 'haproxy.sock');
  writeFileSync(file, haproxyConfig({ port, servers, statsSocket }));
  const check = spawnSync('haproxy', ['-c', '-q', '-f', file], { encoding: 'utf8' });
  if (check.status !== 0) throw new Error(`haproxy rejected its config: ${check.stderr}`);
  const child = spawn('haproxy', ['-db', '-f', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  // Not a Node child: it cannot watch the soak's IPC channel, so it goes when the soak exits.
  process.on('exit', () => child.kill('SIGKILL'));
  let errors = '';
  child.stderr.on('data', (chunk) => {
    errors = (errors + chunk).slice(-4_000);
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) throw new Error(`haproxy exited (${child.exitCode}): ${errors}`);
    if (
      await fetch(`${url}/__fleet_probe`, { signal: AbortSignal.timeout(1_000) }).then(
        () => true,
        () => false,
      )
    )
      break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    file,
    errors: () => errors,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', resolve);
        child.kill('SIGTERM');
      }),
  };
}
