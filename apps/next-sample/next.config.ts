import type { NextConfig } from 'next';

const config: NextConfig = {
  // A native module: loaded by Node at run time, never bundled.
  serverExternalPackages: ['better-sqlite3'],
  poweredByHeader: false,
  reactStrictMode: true,
};

export default config;
