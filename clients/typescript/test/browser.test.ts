// The core client runs in browsers: it bundles for the browser platform with nothing of Node's.
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";

describe("the client in a browser", () => {
  it("bundles for the browser without any Node built-in", async () => {
    const result = await build({
      entryPoints: [fileURLToPath(new URL("../src/index.ts", import.meta.url))],
      bundle: true,
      platform: "browser",
      format: "esm",
      write: false,
      metafile: true,
      logLevel: "silent",
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.some((path) => path.includes("openapi-fetch"))).toBe(true);
    expect(inputs.filter((path) => path.startsWith("node:"))).toEqual([]);
  });
});
