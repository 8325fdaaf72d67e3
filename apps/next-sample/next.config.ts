import type { NextConfig } from 'next';

const config: NextConfig = {
  // The ledger's SQLite store loads node:sqlite or libsql (a native prebuilt binary) at run time:
  // Node loads them, never the bundler.
  serverExternalPackages: ['@mediagen/sqlite', 'libsql'],
  poweredByHeader: false,
  reactStrictMode: true,
};

export default config;
