// The catalog page's definitions tab: the active package's manifest and every definition it lists,
// as normalized YAML (GET /catalog/definitions), one at a time or all together (?def=).
import { stringify } from "yaml";
import { api } from "../api";
import { type Route, withQuery } from "../router";
import type { CatalogDefinitions } from "../types";
import { ErrorNote, Loading } from "./common";
import { Link } from "./link";
import { useApi } from "./use-api";

/** The order families are listed in (any other family follows). */
const FAMILY_ORDER = [
  "collections",
  "search_profiles",
  "processors",
  "derivations",
  "triggers",
  "views",
  "artifacts",
  "mcp",
  "conf",
];

export const MANIFEST = "package";
export const EVERYTHING = "all";

export function toYaml(value: unknown): string {
  return stringify(value, { lineWidth: 0, aliasDuplicateObjects: false });
}

function byFamily(ids: string[]): [string, string[]][] {
  const families = new Map<string, string[]>();
  for (const id of ids) {
    const family = id.slice(0, id.indexOf(":"));
    families.set(family, [...(families.get(family) ?? []), id]);
  }
  const rank = (family: string) => {
    const i = FAMILY_ORDER.indexOf(family);
    return i < 0 ? FAMILY_ORDER.length : i;
  };
  return [...families].sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b));
}

export function DefinitionsTab(props: { route: Route; hashes: Record<string, string> | undefined }) {
  const { route } = props;
  const selected = route.query.get("def") || MANIFEST;
  const defs = useApi((signal) => api<CatalogDefinitions>("GET", "/catalog/definitions", { signal }), []);
  const data = defs.data;
  if (!data)
    return (
      <>
        <ErrorNote error={defs.error} />
        <Loading when={defs.loading} />
      </>
    );
  const ids = Object.keys(data.definitions);
  const link = (def: string, label: string) => (
    <Link href={withQuery(route, { def: def === MANIFEST ? undefined : def })} current={selected === def}>
      {label}
    </Link>
  );
  let title: string;
  let value: unknown;
  if (selected === EVERYTHING) {
    title = `Everything in ${data.package}`;
    value = {
      package: data.package,
      catalog_hash: data.catalog_hash,
      manifest: data.manifest,
      definitions: data.definitions,
    };
  } else if (selected === MANIFEST || !(selected in data.definitions)) {
    title = `Package manifest ${data.package}`;
    value = data.manifest;
  } else {
    title = selected;
    value = data.definitions[selected];
  }
  const hash = selected in data.definitions ? props.hashes?.[selected] : undefined;
  const unknown = selected !== MANIFEST && selected !== EVERYTHING && !(selected in data.definitions);
  return (
    <div class="cat-defs">
      <nav class="cat-def-list card" aria-label="Definitions">
        <ul class="plain-list">
          <li>{link(MANIFEST, "Package manifest")}</li>
          <li>{link(EVERYTHING, "Everything (one document)")}</li>
        </ul>
        {byFamily(ids).map(([family, members]) => (
          <div key={family}>
            <h3 class="caps-heading">
              {family} <span class="muted">({members.length})</span>
            </h3>
            <ul class="plain-list">
              {members.map((id) => (
                <li key={id}>{link(id, id.slice(family.length + 1))}</li>
              ))}
            </ul>
          </div>
        ))}
      </nav>
      <section class="card cat-def-view" aria-label="Definition">
        <header class="card-head">
          <h2>{title}</h2>
          {hash ? (
            <code class="muted hash" title="definition hash">
              {hash}
            </code>
          ) : null}
        </header>
        {unknown ? (
          <p class="error" role="alert">
            The package lists no definition {selected}; showing its manifest.
          </p>
        ) : null}
        {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling block must be reachable by keyboard */}
        <pre class="json cat-yaml" tabIndex={0} data-testid="definition-yaml">
          {toYaml(value)}
        </pre>
      </section>
    </div>
  );
}
