// Views (/console/views?name=V&params=<JSON>): pick an active view, fill the form generated from
// its input schema, run it. Search views show their hits with why each ranked there; graph views
// are drawn as nodes and links, with the same as tables.
import { useEffect, useMemo, useState } from "preact/hooks";
import { api } from "../api";
import { Loading, LoadStatus, Section } from "../components/common";
import { DataTable } from "../components/data-table";
import { type GraphLink, GraphPicture } from "../components/graph-picture";
import { Link } from "../components/link";
import { defaults, ParamForm, type ParamValues } from "../components/param-form";
import { ProblemNote } from "../components/problem-note";
import { preview, RecordLink, SearchResults } from "../components/search-results";
import { isObject } from "../components/search-spec";
import { useApi } from "../components/use-api";
import { href, navigate, type Route } from "../router";
import type {
  GraphViewResponse,
  OrphansViewResponse,
  SearchViewResponse,
  ViewEntry,
  ViewResponse,
} from "../types";

function parseParams(text: string | null): { params?: ParamValues; error?: string } {
  if (text === null) return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return isObject(parsed)
      ? { params: parsed }
      : { error: "The parameters in the address are not a JSON object." };
  } catch {
    return { error: "The parameters in the address are not valid JSON." };
  }
}

export function ViewsPage(props: { route: Route }) {
  const name = props.route.query.get("name") ?? "";
  const paramsText = props.route.query.get("params");
  const fromUrl = useMemo(() => parseParams(paramsText), [paramsText]);
  const views = useApi((signal) => api<{ views: ViewEntry[] }>("GET", "/views", { signal }), []);
  const active = useMemo(
    () => (views.data?.views ?? []).filter((v) => v.active).sort((a, b) => a.name.localeCompare(b.name)),
    [views.data],
  );
  const view = active.find((v) => v.name === name);
  const [values, setValues] = useState<ParamValues>({});
  // A newly chosen view (or a deep link) fills the form: the address's parameters, else the defaults.
  useEffect(() => {
    if (view) setValues({ ...defaults(view.input_schema), ...fromUrl.params });
  }, [view, fromUrl]);

  const result = useApi(
    (signal) => {
      if (!view || !fromUrl.params) return Promise.resolve(undefined);
      const path = `/views/${encodeURIComponent(view.name)}/query`;
      const body = fromUrl.params;
      // Search views explain their hits; graph views refuse the flag.
      const query = view.kind === "search" ? { explain: "true" } : undefined;
      return api<ViewResponse>("POST", path, { body, signal, query });
    },
    [view, fromUrl],
  );

  const run = (params: ParamValues) => {
    const url = href("/views", { name, params: JSON.stringify(params) });
    if (url === location.pathname + location.search) result.reload();
    else navigate(url);
  };

  return (
    <>
      <h1>Views</h1>
      <LoadStatus of={views} />
      {views.data ? (
        <div class="views-layout">
          <Section title="Choose a view">
            <div class="field">
              <label for="view-pick">View</label>
              <select
                id="view-pick"
                value={view ? view.name : ""}
                onChange={(event) => navigate(href("/views", { name: event.currentTarget.value }))}
              >
                <option value="">— choose a view —</option>
                {active.map((v) => (
                  <option key={v.name} value={v.name}>
                    {v.name} ({v.kind})
                  </option>
                ))}
              </select>
            </div>
            {active.length === 0 ? <p class="muted">No active views in this workspace's catalog.</p> : null}
            {name && views.data && !view ? (
              <p class="error" role="alert">
                No active view named <code>{name}</code>.
              </p>
            ) : null}
            {view ? (
              <>
                <dl class="facts view-facts">
                  <dt>Kind</dt>
                  <dd>
                    <span class="badge">{view.kind}</span>
                  </dd>
                  <dt>Version</dt>
                  <dd>{view.version}</dd>
                  <dt>Collections</dt>
                  <dd>{view.collections.join(", ") || "—"}</dd>
                  {view.required_capabilities.length > 0 ? (
                    <>
                      <dt>Needs</dt>
                      <dd>{view.required_capabilities.join(", ")}</dd>
                    </>
                  ) : null}
                </dl>
                <form
                  aria-label={`Parameters of ${view.name}`}
                  onSubmit={(event) => {
                    event.preventDefault();
                    run(values);
                  }}
                >
                  <h3>Parameters</h3>
                  <ParamForm
                    idPrefix="param"
                    schema={view.input_schema}
                    values={values}
                    onChange={setValues}
                  />
                  <div class="actions">
                    <button type="submit" class="primary">
                      Run view
                    </button>
                    <button type="button" onClick={() => setValues(defaults(view.input_schema))}>
                      Defaults
                    </button>
                  </div>
                </form>
              </>
            ) : null}
          </Section>
          <Section title="Results">
            {fromUrl.error ? (
              <p class="error" role="alert">
                {fromUrl.error}
              </p>
            ) : null}
            {view && !fromUrl.params && !fromUrl.error ? (
              <p class="muted">Fill the parameters and run the view.</p>
            ) : null}
            {!view ? <p class="muted">Choose a view.</p> : null}
            <ProblemNote error={result.error} />
            <Loading when={result.loading && !!fromUrl.params && !!view} />
            {view && result.data && !result.error ? <ViewResult view={view} response={result.data} /> : null}
          </Section>
        </div>
      ) : null}
    </>
  );
}

function ViewResult(props: { view: ViewEntry; response: ViewResponse }) {
  const { view, response } = props;
  return (
    <div data-testid="view-result">
      <p class="muted">
        <code>
          {response.view.name}@{response.view.version}
        </code>{" "}
        with {JSON.stringify(response.parameters)}
      </p>
      {/* A view answers the shape of its kind (docs/api.md "`POST /views/{name}/query`"). */}
      {view.kind === "graph" ? (
        <GraphResult response={response as GraphViewResponse} view={view.name} />
      ) : view.kind === "graph_orphans" ? (
        <OrphansResult response={response as OrphansViewResponse} />
      ) : (
        <SearchResults response={response as SearchViewResponse} />
      )}
    </div>
  );
}

function GraphResult(props: { response: GraphViewResponse; view: string }) {
  const { response } = props;
  const edges = response.citations;
  const { nodes, links } = useMemo(() => {
    const set = new Set<string>(response.nodes);
    for (const e of edges) {
      set.add(e.subject);
      set.add(e.object);
    }
    const list: GraphLink[] = edges.map((e) => ({
      id: e.id,
      from: e.subject,
      to: e.object,
      label: e.predicate ?? undefined,
    }));
    return { nodes: [...set].sort(), links: list };
  }, [response]);
  const seed = typeof response.parameters.seed === "string" ? response.parameters.seed : undefined;
  const degree = (node: string, side: "from" | "to") => links.filter((l) => l[side] === node).length;
  return (
    <>
      {response.truncated ? (
        <p class="note">More paths exist beyond the limit ({String(response.parameters.limit)}).</p>
      ) : null}
      {links.length === 0 ? (
        // No edge names the seed: not a lone node drawn as if it were part of the graph.
        <p class="note" role="status">
          No link leaves or reaches {seed ? <code>{seed}</code> : "the seed"}: no edge of this graph names it.
          Check the name, or start from a node another search or view shows.
        </p>
      ) : (
        <GraphPicture
          nodes={nodes}
          links={links}
          seed={seed}
          title={`Graph of ${props.view} from ${seed ?? "the seed"}`}
          nodeHref={(node) =>
            href("/views", {
              name: props.view,
              params: JSON.stringify({ ...response.parameters, seed: node }),
            })
          }
        />
      )}
      <div class="columns graph-tables">
        <DataTable
          label="Nodes"
          caption="Nodes"
          columns={["Node", { label: "Out", num: true }, { label: "In", num: true }]}
        >
          {nodes.map((node) => (
            <tr key={node} class={node === seed ? "selected" : undefined}>
              <td>
                <code>{node}</code>
                {node === seed ? <span class="badge">seed</span> : null}
              </td>
              <td class="num">{degree(node, "from")}</td>
              <td class="num">{degree(node, "to")}</td>
            </tr>
          ))}
        </DataTable>
        <DataTable label="Links" caption="Links" columns={["Subject", "Predicate", "Object", "Record"]}>
          {edges.map((e) => (
            <tr key={e.id}>
              <td>
                <code>{e.subject}</code>
              </td>
              <td>{e.predicate}</td>
              <td>
                <code>{e.object}</code>
              </td>
              <td>
                <RecordLink id={e.id} />
              </td>
            </tr>
          ))}
        </DataTable>
      </div>
      {response.paths.length ? (
        <details class="paths">
          <summary>
            {response.paths.length} {response.paths.length === 1 ? "path" : "paths"}
          </summary>
          <ol>
            {response.paths.map((p) => (
              <li key={p.edge_ids.join(",")}>
                <code>{p.nodes.join(" → ")}</code> <span class="muted">(depth {p.depth})</span>
              </li>
            ))}
          </ol>
        </details>
      ) : null}
    </>
  );
}

function OrphansResult(props: { response: OrphansViewResponse }) {
  const orphans = props.response.orphans;
  // A node is its key (the graph's node names); entity:key when two entities share one.
  const names = useMemo(() => {
    const plain = orphans.map((o) => o.key ?? o.entity);
    const unique = new Set(plain).size === plain.length;
    return unique ? plain : orphans.map((o) => `${o.entity}:${o.key ?? ""}`);
  }, [orphans]);
  return (
    <>
      {props.response.truncated ? <p class="note">More unlinked nodes exist beyond the limit.</p> : null}
      {orphans.length === 0 ? (
        <p class="muted">Every node is linked.</p>
      ) : (
        <GraphPicture nodes={names} links={[]} title="Nodes no link reaches" />
      )}
      <DataTable label="Unlinked nodes" columns={["Key", "Entity", "Record", "Preview"]}>
        {orphans.map((o) => (
          <tr key={o.id}>
            <td>
              <code>{o.key ?? "—"}</code>
            </td>
            <td>
              <Link href={href("/entity", { entity: o.entity })}>{o.entity}</Link>
            </td>
            <td>
              <RecordLink id={o.id} />
            </td>
            <td class="preview">
              {preview({ id: o.id, rank: 0, score: null, text: o.text, content: o.content })}
            </td>
          </tr>
        ))}
      </DataTable>
    </>
  );
}
