import { defineConfig } from "vitest/config";

// Browser end-to-end tests: plain Node, a real `wrangler dev`, and headless
// Chromium driven by playwright-core. Separate from `npm test`, which runs
// inside the Workers runtime.
export default defineConfig({
  test: {
    include: ["e2e/**/*.e2e.test.ts"],
    environment: "node",
    testTimeout: 120_000,
    hookTimeout: 180_000,
    fileParallelism: false,
  },
});
