// The whole SearchSpec (docs/api.md "`POST /search`: the SearchSpec") as a form over a plain
// JSON object: every control reads its key from the spec and writes a new spec, so the raw JSON
// editor beside it and this form always show the same request. Keys the form has no control for
// stay as they are.
import type { SearchSpec } from "../types";
import { CheckGroup, Field, ListInput, NumberInput, type TextFormat, TextInput } from "./form-inputs";
import { Fieldset, KInput, PartEditor } from "./search-part";
import { SourcesEditor } from "./search-sources";
import {
  asObject,
  fieldNames,
  INCLUDE,
  keyBinder,
  type SearchCatalog,
  toggleSources,
  withKey,
} from "./search-spec";

export function SearchForm(props: {
  spec: SearchSpec;
  onChange: (spec: SearchSpec) => void;
  catalog: SearchCatalog;
  rankFormat: TextFormat;
  onRankFormat: (format: TextFormat) => void;
  onRun?: () => void;
}) {
  const { spec, catalog } = props;
  const bound = keyBinder(spec, props.onChange);
  const q = bound.text("q");
  const combined = spec.sources !== undefined;
  const scopes = combined
    ? (Array.isArray(spec.sources) ? spec.sources : []).map((s) => asObject(asObject(s).scope))
    : [asObject(spec.scope)];
  const returnable = [...new Set(scopes.flatMap((scope) => fieldNames(catalog, scope, "return")))].sort();
  const fence = keyBinder(asObject(spec.fence), bound.raw("fence").onChange);
  const rerank = keyBinder(asObject(spec.rerank), bound.raw("rerank").onChange);
  const graphBoost = keyBinder(asObject(spec.graph_boost), bound.raw("graph_boost").onChange);
  return (
    <div class="search-form">
      <div class="field-row">
        <Field
          id="spec-q"
          label="Query (q)"
          class="grow"
          hint={spec.mode === "structured" ? "Ignored by structured mode." : undefined}
        >
          <input
            id="spec-q"
            type="search"
            value={q.value ?? ""}
            placeholder="what to look for"
            aria-describedby={spec.mode === "structured" ? "spec-q-hint" : undefined}
            onInput={(event) =>
              q.onChange(event.currentTarget.value === "" ? undefined : event.currentTarget.value)
            }
          />
        </Field>
        <KInput id="spec-k" {...bound.number("k")} class="narrow" />
      </div>
      <div class="field-row rank-format">
        <label class="check">
          <input
            type="checkbox"
            checked={combined}
            onChange={(event) => props.onChange(toggleSources(spec, event.currentTarget.checked))}
          />
          Combine several sources (rrf)
        </label>
        <fieldset class="inline-radios">
          <legend>Rank expressions as</legend>
          {(["yaml", "json"] as const).map((f) => (
            <label class="check" key={f}>
              <input
                type="radio"
                name="rank-format"
                value={f}
                checked={props.rankFormat === f}
                onChange={() => props.onRankFormat(f)}
              />
              {f.toUpperCase()}
            </label>
          ))}
        </fieldset>
      </div>
      {combined ? (
        <SourcesEditor
          spec={spec}
          onChange={props.onChange}
          catalog={catalog}
          rankFormat={props.rankFormat}
          onRun={props.onRun}
        />
      ) : (
        <PartEditor
          id="spec"
          part={spec}
          onChange={props.onChange}
          catalog={catalog}
          rankFormat={props.rankFormat}
          onRun={props.onRun}
        />
      )}
      <Fieldset legend="Output">
        <CheckGroup id="spec-include" legend="Include" options={[...INCLUDE]} {...bound.list("include")} />
        <CheckGroup
          id="spec-fields"
          legend="Fields"
          options={returnable}
          {...bound.list("fields")}
          empty="No returnable fields in these collections."
        />
        <div class="field-row">
          <ListInput
            id="spec-annotations"
            label="Annotations"
            {...bound.list("annotations")}
            hint="Enrichment names, comma-separated."
          />
          <label class="check">
            <input
              type="checkbox"
              checked={spec.render === true}
              onChange={(event) => {
                const on = event.currentTarget.checked;
                let next = withKey(spec, "render", on ? true : undefined);
                if (!on) next = withKey(next, "fence", undefined);
                props.onChange(next);
              }}
            />
            Render a prompt block
          </label>
        </div>
        {spec.render === true ? (
          <div class="field-row">
            <TextInput id="spec-fence-tag" label="Fence tag" {...fence.text("tag")} placeholder="records" />
            <TextInput id="spec-fence-preamble" label="Fence preamble" {...fence.text("preamble")} />
          </div>
        ) : null}
      </Fieldset>
      <details class="spec-group advanced" open={spec.rerank !== undefined || spec.graph_boost !== undefined}>
        <summary>Rerank and graph boost</summary>
        <div class="field-row">
          <TextInput
            id="spec-rerank-model"
            label="Rerank model"
            {...rerank.text("model")}
            placeholder="model alias"
          />
          <NumberInput
            id="spec-rerank-top"
            label="Rerank top_n"
            integer
            min={1}
            {...rerank.number("top_n")}
          />
        </div>
        <div class="field-row">
          <TextInput id="spec-gb-anchor" label="Graph boost anchor" {...graphBoost.text("anchor")} />
          <TextInput id="spec-gb-graph" label="Graph" {...graphBoost.text("graph")} />
          <NumberInput id="spec-gb-depth" label="Depth" integer min={1} {...graphBoost.number("depth")} />
          <NumberInput id="spec-gb-weight" label="Weight" min={0} {...graphBoost.number("weight")} />
        </div>
      </details>
    </div>
  );
}
