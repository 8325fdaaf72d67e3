import { readConfig } from './config.js';
import { openSample } from './sample.js';

const config = readConfig();
const sample = openSample(config);

const server = sample.app.listen(config.port, () => {
  console.log(`express-sample on http://127.0.0.1:${config.port} (MediaGen at ${config.baseUrl})`);
  console.log(`webhook receiver: POST http://127.0.0.1:${config.port}/api/webhooks/mediagen`);
});

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    server.close(() => void sample.close().then(() => process.exit(0)));
    server.closeAllConnections();
  });
}
