import { describe, expect, it } from "vitest";
import { loadCatalog } from "../../src/catalog/index.js";
import { COLLECTIONS_YAML, MINIMAL_PACKAGE, minimalFiles, PACKAGE_YAML } from "../support/catalog-files.js";
import { refusal } from "../support/refusal.js";

describe("catalog loading", () => {
  it("loads the minimal catalog with stable hashes", () => {
    const a = loadCatalog(minimalFiles(), MINIMAL_PACKAGE);
    expect(a.catalogHash).toMatch(/^[0-9a-f]{64}$/);
    expect(a.index.collections.size).toBe(2);
    const reformatted = minimalFiles({
      "collections/main.yaml": `${COLLECTIONS_YAML.replace("mode: event", "mode:    event")}\n# a comment\n`,
    });
    expect(loadCatalog(reformatted, MINIMAL_PACKAGE).catalogHash).toBe(a.catalogHash);
  });

  it("changes the hash when a definition changes", () => {
    const a = loadCatalog(minimalFiles(), MINIMAL_PACKAGE);
    const b = loadCatalog(
      minimalFiles({
        "collections/main.yaml": COLLECTIONS_YAML.replace("answerable", "x").replace(
          "mode: keyed",
          "mode: mixed",
        ),
      }),
      MINIMAL_PACKAGE,
    );
    expect(b.catalogHash).not.toBe(a.catalogHash);
    expect(b.hashes["collections:notes@1"]).toBe(a.hashes["collections:notes@1"]);
    expect(b.hashes["collections:facts@1"]).not.toBe(a.hashes["collections:facts@1"]);
  });

  it("refuses YAML syntax errors and duplicate keys", () => {
    expect(refusal(minimalFiles({ "collections/main.yaml": "collections: [\n" }))).toMatchObject({
      code: "yaml_syntax",
      status: 422,
      file: "collections/main.yaml",
    });
    expect(
      refusal(minimalFiles({ "packages/demo-pack.yaml": `${PACKAGE_YAML}name: again\n` })),
    ).toMatchObject({
      code: "yaml_syntax",
      file: "packages/demo-pack.yaml",
    });
  });

  it.each([["notes.txt"], ["collections/sub/x.yaml"], ["conf/other.yaml"], ["views/x.json"]])(
    "refuses the unknown file %s",
    (path) => {
      expect(refusal(minimalFiles({ [path]: "x: 1" }))).toMatchObject({
        code: "definition_unknown_file",
        file: path,
      });
    },
  );

  it("refuses a list file that does not start with its list key", () => {
    expect(refusal(minimalFiles({ "collections/main.yaml": "views: []" }))).toMatchObject({
      code: "definition_invalid",
      file: "collections/main.yaml",
      path: "views",
    });
  });

  it("refuses an unknown package with package_not_found", () => {
    expect(refusal(minimalFiles(), "demo-pack@2.0.0")).toMatchObject({ code: "package_not_found" });
  });

  it("requires conf/models.yaml", () => {
    expect(refusal(minimalFiles({ "conf/models.yaml": undefined }))).toMatchObject({
      file: "conf/models.yaml",
    });
  });

  it("refuses two definitions with one identity", () => {
    const files = minimalFiles({ "collections/more.yaml": COLLECTIONS_YAML });
    expect(refusal(files)).toMatchObject({
      code: "definition_duplicate",
      file: "collections/more.yaml",
      path: "collections.0",
    });
  });

  it("refuses a listed reference to nothing", () => {
    const files = minimalFiles({ "packages/demo-pack.yaml": PACKAGE_YAML.replace("facts@1", "facts@2") });
    expect(refusal(files)).toMatchObject({
      code: "definition_unresolved",
      file: "packages/demo-pack.yaml",
      path: "collections.1",
    });
  });

  it("refuses a package that is not closed: a used profile that is not listed", () => {
    const files = minimalFiles({
      "packages/demo-pack.yaml": PACKAGE_YAML.replace("search_profiles: [main]", "search_profiles: []"),
    });
    expect(refusal(files)).toMatchObject({
      code: "package_not_closed",
      file: "collections/main.yaml",
      path: "collections.0.search_profile",
    });
  });

  it("refuses a required processor that does not exist", () => {
    const files = minimalFiles({
      "collections/main.yaml": COLLECTIONS_YAML.replace(
        "    search_profile: main\n  - name: facts",
        "    search_profile: main\n    required_processors: [embedder]\n  - name: facts",
      ),
    });
    expect(refusal(files)).toMatchObject({
      code: "definition_unresolved",
      path: "collections.0.required_processors.0",
    });
  });

  it("refuses two active versions of one collection", () => {
    const second = COLLECTIONS_YAML.replace(
      "name: notes\n    version: 1",
      "name: notes\n    version: 2",
    ).replace(/ {2}- name: facts[\s\S]*/, "");
    const files = minimalFiles({
      "collections/v2.yaml": second,
      "packages/demo-pack.yaml": PACKAGE_YAML.replace("[notes@1, facts@1]", "[notes@1, notes@2, facts@1]"),
    });
    expect(refusal(files)).toMatchObject({
      code: "definition_duplicate",
      file: "collections/v2.yaml",
      path: "collections.0.active",
    });
  });

  it("keeps unlisted definitions out of the selection", () => {
    const files = minimalFiles({
      "packages/demo-pack.yaml": PACKAGE_YAML.replace("[notes@1, facts@1]", "[notes@1]"),
    });
    const loaded = loadCatalog(files, MINIMAL_PACKAGE);
    expect([...loaded.index.collections.keys()]).toEqual(["notes@1"]);
  });

  it("selects one of several package versions", () => {
    const files = minimalFiles({
      "packages/demo-pack-2.yaml": PACKAGE_YAML.replace("1.0.0", "2.0.0").replace(
        "[notes@1, facts@1]",
        "[notes@1]",
      ),
    });
    expect(loadCatalog(files, "demo-pack@2.0.0").index.collections.size).toBe(1);
    expect(loadCatalog(files, "demo-pack@1.0.0").index.collections.size).toBe(2);
  });
});
