// What a publish would change among the catalog's definitions (POST /catalog?dry_run=true&diff=true):
// the definitions added and removed by id, and each changed one as a line diff of its normalized
// YAML (jsdiff), removed lines marked − and added ones +.
import { diffLines } from "diff";
import type { CompatibilityReport } from "../types";
import { compactYaml } from "./form-inputs";

type DefinitionsDiff = NonNullable<CompatibilityReport["diff"]>;

function YamlDiff(props: { before: unknown; after: unknown; label: string }) {
  const parts = diffLines(compactYaml(props.before), compactYaml(props.after));
  return (
    <pre class="yaml-diff" data-label={props.label}>
      {parts.flatMap((part, i) =>
        part.value
          .replace(/\n$/, "")
          .split("\n")
          .map((line, j) => {
            const kind = part.added ? "added" : part.removed ? "removed" : "same";
            const mark = part.added ? "+ " : part.removed ? "− " : "  ";
            return (
              <span key={`${i}-${j}`} class={`diff-${kind}`}>
                {mark}
                {line}
                {"\n"}
              </span>
            );
          }),
      )}
    </pre>
  );
}

function IdList(props: { ids: string[]; label: string }) {
  return (
    <ul class="diff-ids" aria-label={props.label}>
      {props.ids.map((id) => (
        <li key={id}>
          <code>{id}</code>
        </li>
      ))}
    </ul>
  );
}

export function DefinitionsDiffView(props: { diff: DefinitionsDiff }) {
  const { added, removed, changed, from, to } = props.diff;
  if (added.length + removed.length + changed.length === 0) {
    return <p class="muted">No definition changes: {to} is what is installed.</p>;
  }
  return (
    <section class="definitions-diff" aria-label="Definition changes">
      <h3>
        What changes from {from ?? "nothing (first publish)"} to {to}
      </h3>
      {added.length > 0 ? (
        <>
          <h4>Added ({added.length})</h4>
          <IdList ids={added} label="Added definitions" />
        </>
      ) : null}
      {removed.length > 0 ? (
        <>
          <h4>Removed ({removed.length})</h4>
          <IdList ids={removed} label="Removed definitions" />
        </>
      ) : null}
      {changed.length > 0 ? (
        <>
          <h4>Changed ({changed.length})</h4>
          {changed.map((c) => (
            <details key={c.id} open={changed.length <= 3}>
              <summary>
                <code>{c.id}</code>
              </summary>
              <YamlDiff before={c.before} after={c.after} label={`Changes to ${c.id}`} />
            </details>
          ))}
        </>
      ) : null}
    </section>
  );
}
