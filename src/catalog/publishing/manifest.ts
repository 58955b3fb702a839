import semver from "semver";
import {
  type Def,
  NAME,
  NAME_HINT,
  type PackageManifest,
  type RetentionPolicy,
  VERSIONED_REF,
  VERSIONED_REF_HINT,
} from "../definition/index.js";
import { parseCron } from "../families/index.js";

// docs/catalog.md, "Package manifests": lowercase, up to 64 characters.
export const PACKAGE_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;
const PACKAGE_NAME_HINT = "a lowercase package name of at most 64 characters (a-z, 0-9, '.', '_', '-')";

/** "name@semver" as POST /catalog's package field names a manifest. */
export function parsePackageRef(text: string): { name: string; version: string } | undefined {
  const at = text.lastIndexOf("@");
  if (at <= 0) return undefined;
  const name = text.slice(0, at);
  const version = text.slice(at + 1);
  if (!PACKAGE_NAME.test(name) || semver.valid(version) !== version) return undefined;
  return { name, version };
}

function refs(src: Def): string[] {
  return src.maybe()?.strings({ item: { pattern: VERSIONED_REF, patternHint: VERSIONED_REF_HINT } }) ?? [];
}

function names(src: Def): string[] {
  return src.maybe()?.strings() ?? [];
}

function parseRetention(src: Def, collections: string[]): RetentionPolicy {
  src.fields(
    ["name", "collection", "after_days", "cron", "max_pages"],
    ["name", "collection", "after_days", "cron"],
  );
  const collection = src.at("collection").string({ pattern: VERSIONED_REF, patternHint: VERSIONED_REF_HINT });
  if (!collections.includes(collection)) {
    src.at("collection").fail(`collection ${collection} is not listed in this package`, "package_not_closed");
  }
  return {
    name: src.at("name").string({ pattern: NAME, patternHint: NAME_HINT }),
    collection,
    after_days: src.at("after_days").integer({ min: 1, max: 3650 }),
    cron: parseCron(src.at("cron")),
    max_pages: src.at("max_pages").maybe()?.integer({ min: 1, max: 100 }) ?? 25,
  };
}

export function parseManifest(src: Def): PackageManifest {
  src.fields(
    [
      "name",
      "version",
      "description",
      "collections",
      "views",
      "artifacts",
      "processors",
      "triggers",
      "mcp",
      "search_profiles",
      "optional_search_profiles",
      "retentions",
    ],
    ["name", "version"],
  );
  src.at("description").maybe()?.string();
  const version = src.at("version").string();
  if (semver.valid(version) !== version) {
    src.at("version").fail(`"${version}" is not a semantic version (for example 1.0.0 or 1.1.0-rc.1)`);
  }
  const collections = refs(src.at("collections"));
  const searchProfiles = names(src.at("search_profiles"));
  const optional = names(src.at("optional_search_profiles"));
  optional.forEach((name, i) => {
    if (searchProfiles.includes(name)) {
      src.at("optional_search_profiles").at(i).fail(`profile "${name}" cannot be both required and optional`);
    }
  });
  const retentionSrc = src.at("retentions").maybe()?.list() ?? [];
  const retentions = retentionSrc.map((item) => parseRetention(item, collections));
  const seen = new Set<string>();
  retentions.forEach((policy, i) => {
    if (seen.has(policy.name)) {
      retentionSrc[i]?.at("name").fail(`duplicate retention "${policy.name}"`, "definition_duplicate");
    }
    seen.add(policy.name);
  });
  const mcp = src.at("mcp").maybe();
  return {
    name: src.at("name").string({ pattern: PACKAGE_NAME, patternHint: PACKAGE_NAME_HINT }),
    version,
    collections,
    views: refs(src.at("views")),
    artifacts: refs(src.at("artifacts")),
    processors: names(src.at("processors")),
    triggers: names(src.at("triggers")),
    mcp: mcp ? mcp.string({ pattern: VERSIONED_REF, patternHint: VERSIONED_REF_HINT }) : null,
    search_profiles: searchProfiles,
    optional_search_profiles: optional,
    retentions,
  };
}
