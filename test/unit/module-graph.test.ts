// The import graph of src/ keeps its rules (scripts/module-graph.ts), and each rule is seen to fire on
// a probe: a file added or changed in memory only, never on disk.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { graphViolations, importCycles, MCP_MOUNT, readModuleGraph } from "../../scripts/module-graph.js";

const source = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), "utf8");

/** The rules broken by an import of a file the overlay adds or changes (what the tree breaks aside). */
function rulesBroken(overlay: Record<string, string>): string[] {
  const probed = Object.keys(overlay);
  return graphViolations(readModuleGraph(overlay))
    .filter((violation) => probed.some((path) => violation.detail.includes(path)))
    .map((violation) => violation.rule);
}

describe("the module graph of src/", () => {
  it("breaks no rule", () => {
    expect(graphViolations(readModuleGraph())).toEqual([]);
  });

  it("sees a cycle a probe closes, a type-only one included", () => {
    // schema.ts imports errors.ts: errors.ts importing it back closes a cycle of real files.
    const errors = "src/platform/errors.ts";
    expect(source("src/platform/schema.ts")).toMatch(/from "\.\/errors\.js"/);
    expect(rulesBroken({ [errors]: `${source(errors)}\nimport "./schema.js";\n` })).toContain(
      "no import cycle",
    );
    const probe = {
      "src/platform/probe-a.ts": 'import type { B } from "./probe-b.js";\nexport type A = B;\n',
      "src/platform/probe-b.ts": 'import type { A } from "./probe-a.js";\nexport type B = A | 1;\n',
    };
    const cycles = importCycles(readModuleGraph(probe));
    expect(cycles).toContainEqual(["src/platform/probe-a.ts", "src/platform/probe-b.ts"]);
  });

  it("refuses an import around a folder's index.ts", () => {
    expect(rulesBroken({ "src/answer/probe.ts": 'import { x } from "../records/write.js";\n' })).toContain(
      "enter src/records/ through its index.ts",
    );
    expect(rulesBroken({ "src/answer/probe.ts": 'import { x } from "../records/index.js";\n' })).toEqual([]);
  });

  it("enters the catalog and each of its parts through their index.ts", () => {
    const outside = rulesBroken({
      "src/search/probe.ts": 'import { x } from "../catalog/publishing/load.js";\n',
    });
    expect(outside).toContain("enter src/catalog/ through its index.ts");
    expect(outside).toContain("enter src/catalog/publishing/ through its index.ts");
    // Between the catalog's parts too: families/ reads publishing/ only through its entry point.
    const between = rulesBroken({
      "src/catalog/families/probe.ts": 'import { x } from "../publishing/load.js";\n',
    });
    expect(between).toEqual(["enter src/catalog/publishing/ through its index.ts"]);
    expect(rulesBroken({ "src/search/probe.ts": 'import { x } from "../catalog/index.js";\n' })).toEqual([]);
  });

  it("keeps the shells apart, meeting only where MCP is mounted", () => {
    expect(rulesBroken({ "src/mcp/probe.ts": 'import { x } from "../http/index.js";\n' })).toContain(
      "src/mcp does not import src/http",
    );
    expect(rulesBroken({ "src/http/probe.ts": 'import { x } from "../mcp/index.js";\n' })).toContain(
      `src/http imports src/mcp only in ${MCP_MOUNT}`,
    );
    expect(source(MCP_MOUNT)).toMatch(/from "\.\.\/\.\.\/mcp\/index\.js"/);
  });

  it("keeps domain modules and the platform below the shells", () => {
    expect(rulesBroken({ "src/records/probe.ts": 'import { x } from "../http/index.js";\n' })).toContain(
      "domain modules do not import the contract, shells or entry points",
    );
    expect(rulesBroken({ "src/platform/probe.ts": 'import { x } from "../config/index.js";\n' })).toContain(
      "src/platform imports only src/platform",
    );
  });

  it("never lets the server import a client's source, by path or by package name", () => {
    const byPath = 'import { x } from "../../clients/typescript/src/node.js";\n';
    const byName = 'import { x } from "@engram/client/node";\n';
    for (const text of [byPath, byName]) {
      expect(rulesBroken({ "src/platform/probe.ts": text })).toContain("src/ imports only src/ and packages");
    }
  });
});
