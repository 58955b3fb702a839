// The hits of a search (or a search view) with, under each, why it ranked there.
import { href } from "../router";
import type { SearchHit, SearchResponse } from "../types";
import { TableHead } from "./data-table";
import { ExplainPanel, explainSummary, num } from "./explain-panel";
import { Link } from "./link";
import { isObject } from "./search-spec";

/** A short, one-paragraph preview of what a hit holds (its text, else its fields or content). */
export function preview(hit: SearchHit, max = 220): string {
  const source =
    typeof hit.text === "string"
      ? hit.text
      : hit.fields
        ? JSON.stringify(hit.fields)
        : hit.content !== undefined
          ? JSON.stringify(hit.content)
          : "";
  const flat = source.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export function shortId(id: string): string {
  return id.length > 13 ? `${id.slice(0, 8)}…` : id;
}

export function RecordLink(props: { id: string }) {
  return (
    <span title={props.id} class="mono">
      <Link href={href("/record", { id: props.id })}>{shortId(props.id)}</Link>
    </span>
  );
}

/** A hit's requested fields, under its text: "channel email · priority 4". */
function FieldValues(props: { fields: Record<string, unknown> }) {
  const entries = Object.entries(props.fields);
  if (entries.length === 0) return null;
  return (
    <span class="hit-fields">
      {entries.map(([name, value]) => (
        <span key={name}>
          <span class="muted">{name}</span> <code>{JSON.stringify(value)}</code>
        </span>
      ))}
    </span>
  );
}

function Summary(props: { response: SearchResponse }) {
  const { response } = props;
  const candidates = (response.backend ?? []).reduce((n, b) => n + (b.candidate_count ?? 0), 0);
  return (
    <p class="muted result-summary" data-testid="result-summary">
      <strong>{response.hits.length}</strong> {response.hits.length === 1 ? "hit" : "hits"}
      {response.ranking ? (
        <>
          {" "}
          · ranking <code>{String(response.ranking.kind)}</code>
        </>
      ) : null}
      {response.backend?.length ? (
        <>
          {" "}
          · {candidates} candidates (
          {response.backend
            .map((b) => `${b.source ? `${b.source}: ` : ""}${b.name} ${b.layout} ${b.candidate_count}`)
            .join("; ")}
          )
        </>
      ) : null}
      {response.profiles?.length ? <> · profiles {response.profiles.join(", ")}</> : null}
    </p>
  );
}

export function SearchResults(props: { response: SearchResponse }) {
  const { response } = props;
  const hits = response.hits;
  const withSources = hits.some((h) => h.source_ranks);
  const columns = withSources ? 8 : 7;
  return (
    <div class="search-results">
      <Summary response={response} />
      {hits.length === 0 ? (
        <p class="muted">No hits: the search succeeded and found nothing.</p>
      ) : (
        <ScoreLegend />
      )}
      {hits.length === 0 ? null : (
        <div class="table-wrap">
          <table class="hits" aria-label="Hits">
            <TableHead
              columns={[
                { label: "Rank", num: true },
                "Id",
                "Collection",
                "Entity",
                { label: "rank_score", num: true },
                { label: "score", num: true },
                withSources && "Source ranks",
                "Preview",
              ]}
            />
            {hits.map((hit) => (
              <tbody key={hit.id} class="hit" data-testid="hit" data-id={hit.id}>
                <tr>
                  <td class="num">{hit.rank}</td>
                  <td>
                    <RecordLink id={hit.id} />
                  </td>
                  <td>
                    {typeof hit.collection === "string" ? hit.collection : <span class="muted">—</span>}
                  </td>
                  <td>
                    {typeof hit.entity === "string" && hit.entity ? (
                      <Link href={href("/entity", { entity: hit.entity })}>{hit.entity}</Link>
                    ) : (
                      <span class="muted">—</span>
                    )}
                  </td>
                  <td
                    class="num"
                    data-testid="rank-score"
                    data-value={String(hit.rank_score)}
                    title={String(hit.rank_score)}
                  >
                    {num(hit.rank_score)}
                  </td>
                  <td class="num">{num(hit.score)}</td>
                  {withSources ? (
                    <td class="mono">
                      {Object.entries(hit.source_ranks ?? {})
                        .map(([s, r]) => `${s} ${r}`)
                        .join(", ") || "—"}
                    </td>
                  ) : null}
                  <td class="preview">
                    {preview(hit)}
                    {isObject(hit.fields) && typeof hit.text === "string" ? (
                      <FieldValues fields={hit.fields} />
                    ) : null}
                  </td>
                </tr>
                {hit.explain ? (
                  <tr class="explain-row">
                    <td colSpan={columns}>
                      <details>
                        <summary>
                          Why #{hit.rank} ranked there
                          <span class="muted"> {explainSummary(hit.explain)}</span>
                        </summary>
                        <ExplainPanel hit={hit} />
                      </details>
                    </td>
                  </tr>
                ) : null}
              </tbody>
            ))}
          </table>
        </div>
      )}
      {typeof response.rendered === "string" ? (
        <details class="rendered">
          <summary>Rendered block{response.truncated ? " (truncated by its budget)" : ""}</summary>
          <pre class="content">{response.rendered}</pre>
        </details>
      ) : null}
    </div>
  );
}

/** What the two score columns hold, and why the recency term adds about the same to every fresh hit. */
function ScoreLegend() {
  return (
    <details class="score-legend">
      <summary>What rank_score and score are</summary>
      <dl class="facts">
        <dt>
          <code>rank_score</code>
        </dt>
        <dd>
          The ranking formula's value: hits are ordered by it. The default text, vector and hybrid formulas
          add the normalized match (0–1) and a recency decay of the time since a search last returned the
          record (1 when just returned, ½ after 24 hours), so a range of 0–2. Records written or returned in
          the last hours all get a decay near 1: it then adds about the same to every hit, and the match
          decides the order. A catalog's <code>conf/rank.yaml</code> or the request's <code>rank</code> may
          replace the formula; “Why #N ranked there” shows each hit's terms.
        </dd>
        <dt>
          <code>score</code>
        </dt>
        <dd>
          <code>rank_score</code> rescaled over the whole candidate pool (min to max): the top hit is 1.0, and
          all are 1.0 when all tie. A display scale for comparing hits of one search, not a confidence; none
          in structured mode, where <code>order_by</code> decides.
        </dd>
      </dl>
    </details>
  );
}
