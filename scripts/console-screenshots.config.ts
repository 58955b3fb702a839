// The vitest configuration of `npm run console:screenshots`: the suite's own (its global setup
// prepares the stores the console's test server uses), running only the screenshot script.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import suite from "../vitest.config.js";

export default defineConfig({
  ...suite,
  root: fileURLToPath(new URL("..", import.meta.url)),
  test: { ...suite.test, include: ["scripts/console-screenshots.shots.ts"], testTimeout: 300_000 },
});
