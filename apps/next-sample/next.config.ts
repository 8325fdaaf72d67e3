import type { NextConfig } from 'next';

const config: NextConfig = {
  // The ledger's SQLite store loads node:sqlite or libsql (a native prebuilt binary) at run time:
  // Node loads them, never the bundler.
  // The PostgreSQL and Redis stores (MEDIAGEN_DATABASE_URL, MEDIAGEN_REDIS_URL) load pg and ioredis the same way.
  serverExternalPackages: ['@mediagen/sqlite', 'libsql', '@mediagen/postgres', 'pg', '@mediagen/redis', 'ioredis'],
  poweredByHeader: false,
  reactStrictMode: true,
};

export default config;
