// engram catalog publish without --package (docs/api.md "Command line"): the one manifest under
// packages/ is selected; none or several is a refusal naming what the directory holds.
import { describe, expect, it } from "vitest";
import { onlyPackage } from "../../src/cli/catalog.js";

const manifest = (name: string, version: string) => `name: ${name}\nversion: ${version}\n`;

describe("the package a publish selects by default", () => {
  it("is the only manifest, as name@version", () => {
    expect(
      onlyPackage({ "packages/support.yaml": manifest("support", "1.2.0"), "views/a.yaml": "views: []" }),
    ).toBe("support@1.2.0");
  });

  it("is refused when the directory holds none, or several, naming them", () => {
    expect(() => onlyPackage({ "views/a.yaml": "views: []" })).toThrow(
      /no package manifest under packages\//,
    );
    expect(() =>
      onlyPackage({
        "packages/a.yaml": manifest("a", "1.0.0"),
        "packages/b.yaml": manifest("b", "2.0.0"),
      }),
    ).toThrow("2 package manifests (a@1.0.0, b@2.0.0): choose one with --package");
  });
});
