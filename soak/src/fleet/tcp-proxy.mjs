// A TCP proxy an instance reaches its Redis through, so the soak can partition that one instance
// from Redis (`cut()`: open connections dropped, new ones refused) and heal it (`heal()`).
import { connect, createServer } from 'node:net';

export async function startTcpProxy({ port, target }) {
  const sockets = new Set();
  let cut = false;
  const server = createServer((client) => {
    if (cut) return client.destroy();
    const upstream = connect(target);
    sockets.add(client);
    sockets.add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `redis://127.0.0.1:${port}`,
    get isCut() {
      return cut;
    },
    cut() {
      cut = true;
      for (const socket of sockets) socket.destroy();
      sockets.clear();
    },
    heal() {
      cut = false;
    },
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(resolve);
      }),
  };
}
