import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/global-setup.ts"],
    // PGlite startup and server databases make the first test of a file slower than a unit test.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
});
