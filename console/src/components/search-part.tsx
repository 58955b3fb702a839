// One search of a SearchSpec as a form: mode, scope, where, order_by, rank and params, the keys a
// single search and each source of a combined one share.
import type { ComponentChildren } from "preact";
import {
  CheckGroup,
  ListInput,
  NumberInput,
  OptionSelect,
  StructuredInput,
  type TextFormat,
  TextInput,
} from "./form-inputs";
import {
  asObject,
  asString,
  fieldNames,
  isObject,
  keyBinder,
  MODES,
  type Obj,
  type SearchCatalog,
  withKey,
} from "./search-spec";

/** Scope keys behind "Status, versions, depth and time" (opened when the spec sets one). */
const MORE_SCOPE = [
  "status",
  "keyed",
  "versions",
  "depth_lte",
  "occurred_after",
  "occurred_before",
  "collection_versions",
];

const mustBeObject = (v: unknown) => (isObject(v) ? undefined : "must be a JSON object");
const mustBeList = (v: unknown) =>
  Array.isArray(v) ? undefined : "a rank expression is a list: [operator, …arguments]";

/** How many hits a search (or a source) returns. */
export function KInput(props: {
  id: string;
  value: number | undefined;
  onChange: (k: number | undefined) => void;
  class?: string;
}) {
  return <NumberInput label="k" integer min={1} max={100} placeholder="20" {...props} />;
}

export function Fieldset(props: { legend: string; children: ComponentChildren; class?: string }) {
  return (
    <fieldset class={`spec-group ${props.class ?? ""}`}>
      <legend>{props.legend}</legend>
      {props.children}
    </fieldset>
  );
}

function ScopeEditor(props: {
  id: string;
  scope: Obj;
  onChange: (scope: Obj) => void;
  catalog: SearchCatalog;
}) {
  const { id, scope, catalog } = props;
  const bound = keyBinder(scope, props.onChange);
  return (
    <Fieldset legend="Scope">
      <CheckGroup
        id={`${id}-collections`}
        legend="Collections"
        options={catalog.collections.map((c) => c.name)}
        {...bound.list("collections")}
        hint="None checked: every ordinary collection."
        empty="No collections (publish a catalog first)."
      />
      <div class="field-row">
        <ListInput
          id={`${id}-entities`}
          label="Entities"
          {...bound.list("entities")}
          placeholder="acme, globex"
          hint="Comma-separated."
        />
        <ListInput id={`${id}-types`} label="Types" {...bound.list("types")} placeholder="ticket" />
      </div>
      <details class="more-scope" open={MORE_SCOPE.some((key) => scope[key] !== undefined)}>
        <summary>Status, versions, depth and time</summary>
        <div class="field-row">
          <OptionSelect
            id={`${id}-status`}
            label="Status"
            {...bound.text("status")}
            options={["active", "draft", "all"]}
            unset="(active)"
          />
          <OptionSelect
            id={`${id}-keyed`}
            label="Keyed"
            value={scope.keyed === undefined ? undefined : String(scope.keyed)}
            options={["any", "true", "false"]}
            unset="(any)"
            onChange={(v) =>
              props.onChange(withKey(scope, "keyed", v === "true" ? true : v === "false" ? false : v))
            }
          />
          <OptionSelect
            id={`${id}-versions`}
            label="Versions"
            {...bound.text("versions")}
            options={["current", "all"]}
            unset="(current)"
          />
          <NumberInput id={`${id}-depth`} label="Depth ≤" integer min={0} {...bound.number("depth_lte")} />
        </div>
        <div class="field-row">
          <TextInput
            id={`${id}-after`}
            label="Occurred after"
            {...bound.text("occurred_after")}
            placeholder="2026-01-01T00:00:00Z"
          />
          <TextInput
            id={`${id}-before`}
            label="Occurred before"
            {...bound.text("occurred_before")}
            placeholder="2026-12-31T00:00:00Z"
          />
        </div>
      </details>
    </Fieldset>
  );
}

function OrderByEditor(props: {
  id: string;
  value: unknown;
  onChange: (v: unknown) => void;
  sortable: string[];
}) {
  const rows = Array.isArray(props.value) ? (props.value as Obj[]) : [];
  const listId = `${props.id}-fields`;
  const update = (i: number, row: Obj | undefined) => {
    const next = rows.flatMap((r, j) => (j === i ? (row ? [row] : []) : [r]));
    props.onChange(next.length === 0 ? undefined : next);
  };
  return (
    <Fieldset legend="Order by (structured)">
      <datalist id={listId}>
        {props.sortable.map((f) => (
          <option key={f} value={f} />
        ))}
      </datalist>
      {rows.map((row, i) => (
        <div class="field-row order-row" key={i}>
          <TextInput
            id={`${props.id}-${i}-field`}
            label={`Sort key ${i + 1}`}
            list={listId}
            value={asString(row.field)}
            onChange={(v) => update(i, withKey(row, "field", v ?? ""))}
          />
          <OptionSelect
            id={`${props.id}-${i}-direction`}
            label="Direction"
            value={asString(row.direction)}
            options={["asc", "desc"]}
            unset="(asc)"
            onChange={(v) => update(i, withKey(row, "direction", v))}
          />
          <button type="button" onClick={() => update(i, undefined)} aria-label={`Remove sort key ${i + 1}`}>
            Remove
          </button>
        </div>
      ))}
      <button
        type="button"
        onClick={() => props.onChange([...rows, { field: props.sortable[0] ?? "", direction: "desc" }])}
      >
        Add sort key
      </button>
      {props.sortable.length > 0 ? <span class="hint"> Sortable: {props.sortable.join(", ")}</span> : null}
    </Fieldset>
  );
}

/** A rank expression (or a boost) typed as YAML or JSON; the label names the format. */
export function RankEditor(props: {
  id: string;
  label: string;
  value: unknown;
  onChange: (v: unknown) => void;
  format: TextFormat;
  defaultFormula?: unknown;
  onRun?: () => void;
  hint?: ComponentChildren;
}) {
  return (
    <div class="rank-editor">
      <StructuredInput
        id={props.id}
        label={`${props.label} (${props.format === "yaml" ? "YAML" : "JSON"})`}
        format={props.format}
        value={props.value}
        onChange={props.onChange}
        check={mustBeList}
        rows={5}
        class="rank-input"
        onRun={props.onRun}
        placeholder={
          props.format === "yaml" ? "[sum, [[similarity], [score, urgency]]]" : '["sum", [["similarity"]]]'
        }
        hint={props.hint ?? "Empty: the mode's default formula."}
      />
      {props.defaultFormula !== undefined ? (
        <button type="button" onClick={() => props.onChange(props.defaultFormula)}>
          Start from the default formula
        </button>
      ) : null}
    </div>
  );
}

/** mode, scope, where, order_by, rank, params (and k in a source): one search. */
export function PartEditor(props: {
  id: string;
  part: Obj;
  onChange: (part: Obj) => void;
  catalog: SearchCatalog;
  rankFormat: TextFormat;
  onRun?: () => void;
  withK?: boolean;
}) {
  const { id, part, catalog } = props;
  const bound = keyBinder(part, props.onChange);
  const params = keyBinder(asObject(part.params), bound.raw("params").onChange);
  const mode = asString(part.mode);
  const scope = asObject(part.scope);
  const filterable = fieldNames(catalog, scope, "filter");
  return (
    <>
      <div class="field-row">
        <OptionSelect
          id={`${id}-mode`}
          label="Mode"
          {...bound.text("mode")}
          options={MODES}
          unset="—"
          required
        />
        {props.withK ? <KInput id={`${id}-k`} {...bound.number("k")} /> : null}
        <NumberInput
          id={`${id}-candidates`}
          label="Candidates"
          integer
          min={1}
          max={1000}
          {...params.number("candidates")}
          placeholder="default"
        />
      </div>
      <ScopeEditor
        id={`${id}-scope`}
        scope={scope}
        onChange={bound.raw("scope").onChange}
        catalog={catalog}
      />
      <StructuredInput
        id={`${id}-where`}
        label="Where (JSON)"
        {...bound.raw("where")}
        check={mustBeObject}
        rows={3}
        onRun={props.onRun}
        placeholder='{"priority": {"gte": 3}}'
        hint={
          filterable.length > 0
            ? `Filterable: ${filterable.join(", ")}. Conditions: eq, in, gt, gte, lt, lte, exists, contains_any, contains_all.`
            : "Field → conditions (eq, in, gt, gte, lt, lte, exists, contains_any, contains_all)."
        }
      />
      {mode === "structured" || part.order_by !== undefined ? (
        <OrderByEditor
          id={`${id}-order`}
          {...bound.raw("order_by")}
          sortable={fieldNames(catalog, scope, "sort")}
        />
      ) : null}
      {mode !== "structured" || part.rank !== undefined ? (
        <RankEditor
          id={`${id}-rank`}
          label="Rank expression"
          {...bound.raw("rank")}
          format={props.rankFormat}
          defaultFormula={mode ? catalog.formulas[mode] : undefined}
          onRun={props.onRun}
          hint={
            catalog.scores.length > 0
              ? `Empty: the mode's default formula. Stored scores: ${catalog.scores.join(", ")}.`
              : undefined
          }
        />
      ) : null}
    </>
  );
}
