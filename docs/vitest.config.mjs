import { defineConfig } from 'vitest/config';

// The generators' own rules (the link check, the code-span fix); the site itself is checked by
// building it (`pnpm run site`).
export default defineConfig({
  test: { include: ['scripts/**/*.test.mjs'], testTimeout: 30_000 },
});
