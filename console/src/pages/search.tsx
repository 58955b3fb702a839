// The search playground (/console/search?spec=<JSON>): the whole SearchSpec as a form beside its
// raw JSON, run with `explain: true`, every hit with why it ranked there. The spec that ran lives
// in the URL, so a deep link (or a reload) runs it again.
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { api } from "../api";
import { Loading } from "../components/common";
import { StructuredInput, type TextFormat } from "../components/form-inputs";
import { ProblemNote } from "../components/problem-note";
import { SearchForm } from "../components/search-form";
import { SearchResults } from "../components/search-results";
import { isObject, type SearchCatalog } from "../components/search-spec";
import { useApi } from "../components/use-api";
import { href, navigate, type Route } from "../router";
import type { CollectionsAnswer, RankSchema, SearchResponse, SearchSpec } from "../types";

export const DEFAULT_SPEC: SearchSpec = {
  mode: "hybrid",
  q: "",
  k: 10,
  include: ["text", "collection", "entity", "type", "scores"],
};

const RANK_FORMAT_KEY = "engram.console.rank-format";

/** The workspace's collections and rank defaults for the form; a failure leaves the form usable. */
async function loadCatalog(signal: AbortSignal): Promise<SearchCatalog> {
  const [collections, schema] = await Promise.all([
    api<CollectionsAnswer>("GET", "/collections", { signal }).catch(() => ({ collections: [] })),
    api<RankSchema>("GET", "/rank/schema", { signal }).catch(() => ({}) as RankSchema),
  ]);
  const byName = new Map<string, SearchCatalog["collections"][number]>();
  for (const c of collections.collections) {
    if (c.active) byName.set(c.name, { name: c.name, fields: c.fields ?? {} });
  }
  return {
    collections: [...byName.values()].sort((a, b) => a.name.localeCompare(b.name)),
    formulas: schema.defaults?.formulas ?? {},
    scores: (schema.scores ?? []).map((s) => s.name),
  };
}

function parseSpecParam(text: string | null): { spec?: SearchSpec; error?: string } {
  if (text === null || text === "") return {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (!isObject(parsed)) return { error: "The spec in the address is not a JSON object." };
    return { spec: parsed };
  } catch (caught) {
    return {
      error: `The spec in the address is not valid JSON: ${caught instanceof Error ? caught.message : caught}`,
    };
  }
}

/** Beside the Run button: what the last run gave, with a way down to it. */
function RunStatus(props: { loading: boolean; error: unknown; hits: number | undefined }) {
  let text: string | undefined;
  if (props.loading) text = "Running…";
  else if (props.error) text = "Refused: see the problem below";
  else if (props.hits !== undefined) text = `${props.hits} ${props.hits === 1 ? "hit" : "hits"}`;
  if (!text) return null;
  return (
    <span class={`run-status${props.error && !props.loading ? " failed" : ""}`} aria-live="polite">
      {text} · <a href="#results">Results</a>
    </span>
  );
}

export function SearchPage(props: { route: Route }) {
  const specParam = props.route.query.get("spec");
  const fromUrl = useMemo(() => parseSpecParam(specParam), [specParam]);
  const [draft, setDraft] = useState<SearchSpec>(() => fromUrl.spec ?? DEFAULT_SPEC);
  const [rankFormat, setRankFormat] = useState<TextFormat>(() =>
    sessionStorage.getItem(RANK_FORMAT_KEY) === "json" ? "json" : "yaml",
  );
  // Back, forward or a new deep link: the form shows the spec in the address.
  useEffect(() => {
    if (fromUrl.spec) setDraft(fromUrl.spec);
  }, [fromUrl]);

  const catalog = useApi(loadCatalog, []);
  const result = useApi(
    (signal) =>
      fromUrl.spec
        ? api<SearchResponse>("POST", "/search", { body: { ...fromUrl.spec, explain: true }, signal })
        : Promise.resolve(undefined),
    [fromUrl],
  );

  // A run brings its results into view once they are there (below the form on most screens).
  const scrollPending = useRef(false);
  useEffect(() => {
    if (!scrollPending.current || result.loading || !(result.data || result.error)) return;
    scrollPending.current = false;
    document.getElementById("results")?.scrollIntoView({ block: "start" });
  }, [result.data, result.error, result.loading]);
  const run = () => {
    const url = href("/search", { spec: JSON.stringify(draft) });
    scrollPending.current = true;
    if (url === location.pathname + location.search) result.reload();
    else navigate(url);
  };
  const chooseFormat = (format: TextFormat) => {
    sessionStorage.setItem(RANK_FORMAT_KEY, format);
    setRankFormat(format);
  };

  return (
    <>
      <h1>Search playground</h1>
      <form
        class="search-layout"
        aria-label="Search request"
        onSubmit={(event) => {
          event.preventDefault();
          run();
        }}
      >
        <section class="card search-form-card" aria-label="Search request form">
          <SearchForm
            spec={draft}
            onChange={setDraft}
            catalog={catalog.data ?? { collections: [], formulas: {}, scores: [] }}
            rankFormat={rankFormat}
            onRankFormat={chooseFormat}
            onRun={run}
          />
        </section>
        <section class="card search-json-card" aria-label="Search request JSON">
          <StructuredInput
            id="spec-json"
            label="Search request (JSON)"
            value={draft}
            onChange={(value) => setDraft(value as SearchSpec)}
            check={(v) => (isObject(v) ? undefined : "A search request is a JSON object.")}
            rows={18}
            width={44}
            expandRoot
            class="spec-json"
            onRun={run}
            hint={
              <>
                Edits here update the form, and the form's edits show here. <code>explain: true</code> is
                added when it runs. Ctrl+Enter runs.
              </>
            }
          />
          <div class="actions">
            <button type="submit" class="primary">
              Run search
            </button>
            <button type="button" onClick={() => setDraft(DEFAULT_SPEC)}>
              New search
            </button>
            <RunStatus loading={result.loading} error={result.error} hits={result.data?.hits.length} />
          </div>
        </section>
      </form>
      <section class="card" aria-label="Results" id="results">
        <header class="card-head">
          <h2>Results</h2>
        </header>
        {fromUrl.error ? (
          <p class="error" role="alert">
            {fromUrl.error}
          </p>
        ) : null}
        {!fromUrl.spec && !fromUrl.error ? (
          <p class="muted">Run a search to see its hits and why each ranked there.</p>
        ) : null}
        <ProblemNote error={result.error} />
        <Loading when={result.loading} />
        {result.data && !result.error ? <SearchResults response={result.data} /> : null}
      </section>
    </>
  );
}
