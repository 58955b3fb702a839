import { readFile } from "node:fs/promises";
import { Command } from "commander";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createTestApp, type TestApp } from "../support/app.js";

// The reference must stand alone: every route the API publishes has a section in docs/api.md,
// every command of the CLI is mentioned in the README, and the README points nowhere outside
// the repository.

const root = new URL("../../", import.meta.url);
const readText = (path: string) => readFile(new URL(path, root), "utf8");

const METHODS = ["get", "put", "post", "delete", "patch"];

/** The engram program as src/cli/index.ts builds it, captured instead of parsing argv. */
async function cliProgram(): Promise<Command> {
  let program: Command | undefined;
  const parse = vi.spyOn(Command.prototype, "parseAsync").mockImplementation(async function (this: Command) {
    program = this;
    return this;
  });
  try {
    await import("../../src/cli/index.js");
  } finally {
    parse.mockRestore();
  }
  if (!program) throw new Error("src/cli/index.ts did not parse a program");
  return program;
}

/** Every command path under the program: ["serve"], ["catalog", "publish"], … */
function commandPaths(command: Command, prefix: string[] = []): string[][] {
  return command.commands.flatMap((sub) => {
    const path = [...prefix, sub.name()];
    return [path, ...commandPaths(sub, path)];
  });
}

describe("documentation coverage", () => {
  let test: TestApp;
  let routes: string[];

  beforeAll(async () => {
    test = await createTestApp();
    const res = await test.app.inject({ method: "GET", url: "/openapi.json" });
    expect(res.statusCode).toBe(200);
    const paths = res.json().paths as Record<string, Record<string, unknown>>;
    routes = Object.entries(paths).flatMap(([path, operations]) =>
      Object.keys(operations)
        .filter((method) => METHODS.includes(method))
        .map((method) => `${method.toUpperCase()} ${path}`),
    );
  });

  afterAll(async () => {
    await test?.close();
  });

  it("gives every route of /openapi.json a section in docs/api.md", async () => {
    // A section: a heading or a table row naming the route as `METHOD /path` ({param} form).
    const sections = (await readText("docs/api.md"))
      .split("\n")
      .filter((line) => line.startsWith("#") || line.startsWith("|"));
    expect(routes.length).toBeGreaterThan(20);
    const missing = routes.filter((route) => !sections.some((line) => line.includes(`\`${route}\``)));
    expect(missing, "routes without a section in docs/api.md").toEqual([]);
  });

  it("mentions every CLI command in README.md", async () => {
    const readme = await readText("README.md");
    const paths = commandPaths(await cliProgram());
    expect(paths.map((path) => path.join(" "))).toEqual(
      expect.arrayContaining(["serve", "workspace create", "catalog publish"]),
    );
    const missing = paths.map((path) => `engram ${path.join(" ")}`).filter((line) => !readme.includes(line));
    expect(missing, "commands the README does not mention").toEqual([]);
  });

  it("keeps README.md inside the repository (no ../ link or reference)", async () => {
    const readme = await readText("README.md");
    const outside = readme.split("\n").filter((line) => line.includes("../"));
    expect(outside).toEqual([]);
  });
});
