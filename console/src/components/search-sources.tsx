// A combined search (docs/api.md "Sources, fuse and boost"): its sources, each one search with a
// name and a weight, fused by rrf, and the boost applied after fusing.
import type { SearchSpec } from "../types";
import { NumberInput, type TextFormat, TextInput } from "./form-inputs";
import { Fieldset, PartEditor, RankEditor } from "./search-part";
import { asObject, asString, keyBinder, type Obj, type SearchCatalog, withKey } from "./search-spec";

/** The most sources a combined search takes. */
const MAX_SOURCES = 8;

export function SourcesEditor(props: {
  spec: SearchSpec;
  onChange: (spec: SearchSpec) => void;
  catalog: SearchCatalog;
  rankFormat: TextFormat;
  onRun?: () => void;
}) {
  const { spec } = props;
  const bound = keyBinder(spec, props.onChange);
  const sources = Array.isArray(spec.sources) ? (spec.sources as unknown[]).map(asObject) : [];
  const setSources = (next: Obj[]) => props.onChange(withKey(spec, "sources", next));
  const fuse = keyBinder({ kind: "rrf", ...asObject(spec.fuse) }, bound.raw("fuse").onChange);
  const unusedName = () => {
    for (let n = sources.length + 1; ; n++) if (!sources.some((s) => s.name === `s${n}`)) return `s${n}`;
  };
  return (
    <Fieldset legend="Sources (fused by rrf)" class="sources">
      <ol class="plain-list">
        {sources.map((source, i) => {
          const id = `source-${i}`;
          const set = (next: Obj) => setSources(sources.map((s, j) => (j === i ? next : s)));
          return (
            <li key={i} class="source">
              <div class="field-row">
                <TextInput
                  id={`${id}-name`}
                  label={`Source ${i + 1} name`}
                  value={asString(source.name)}
                  onChange={(v) => set(withKey(source, "name", v ?? ""))}
                />
                <NumberInput
                  id={`${id}-weight`}
                  label="Weight"
                  min={0}
                  max={100}
                  {...keyBinder(source, set).number("weight")}
                  placeholder="1"
                />
                <button
                  type="button"
                  disabled={sources.length === 1}
                  onClick={() => setSources(sources.filter((_, j) => j !== i))}
                  aria-label={`Remove source ${i + 1}`}
                >
                  Remove
                </button>
              </div>
              <PartEditor
                id={id}
                part={source}
                onChange={set}
                catalog={props.catalog}
                rankFormat={props.rankFormat}
                onRun={props.onRun}
                withK
              />
            </li>
          );
        })}
      </ol>
      <div class="field-row">
        <button
          type="button"
          disabled={sources.length >= MAX_SOURCES}
          onClick={() => setSources([...sources, { name: unusedName(), mode: "text" }])}
        >
          Add source
        </button>
        <NumberInput
          id="fuse-rank-constant"
          label="rrf rank_constant"
          integer
          min={1}
          max={1000}
          {...fuse.number("rank_constant")}
          placeholder="60"
        />
      </div>
      <RankEditor
        id="boost"
        label="Boost after fusing"
        {...bound.raw("boost")}
        format={props.rankFormat}
        onRun={props.onRun}
        hint="Optional: scores, ages and constants only; the fused value is multiplied by max(0, boost)."
      />
    </Fieldset>
  );
}
