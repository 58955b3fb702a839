// A form generated from a view's input_schema (JSON Schema 2020-12, docs/catalog.md "Parameters"):
// string (enum as a select, date-time as text), integer and number, boolean, array of strings
// (item enum as checkboxes, otherwise one per line). Required parameters are marked and defaults
// filled in; `values` holds typed values, an optional parameter left empty is absent.
import type { InputSchema, SchemaProperty } from "../types";
import { CheckGroup, Field, ListInput, NumberInput } from "./form-inputs";

export type ParamValues = Record<string, unknown>;

function typeOf(property: SchemaProperty): string {
  const t = Array.isArray(property.type) ? property.type.find((x) => x !== "null") : property.type;
  return t ?? "string";
}

/** Every parameter's default (what a new form starts from). */
export function defaults(schema: InputSchema): ParamValues {
  const values: ParamValues = {};
  for (const [name, property] of Object.entries(schema.properties)) {
    if (property.default !== undefined) values[name] = property.default;
  }
  return values;
}

function constraints(property: SchemaProperty): string[] {
  const out: string[] = [];
  if (property.minimum !== undefined && property.maximum !== undefined)
    out.push(`${property.minimum}–${property.maximum}`);
  else if (property.minimum !== undefined) out.push(`≥ ${property.minimum}`);
  else if (property.maximum !== undefined) out.push(`≤ ${property.maximum}`);
  if (property.minLength !== undefined || property.maxLength !== undefined) {
    out.push(`${property.minLength ?? 0}–${property.maxLength ?? "∞"} characters`);
  }
  if (property.minItems !== undefined || property.maxItems !== undefined) {
    out.push(`${property.minItems ?? 0}–${property.maxItems ?? "∞"} items`);
  }
  if (property.format === "date-time") out.push("a timestamp with a timezone");
  if (property.default !== undefined) out.push(`default ${JSON.stringify(property.default)}`);
  return out;
}

function Label(props: { name: string; required: boolean }) {
  return (
    <>
      <code>{props.name}</code>
      {props.required ? (
        <span class="required" title="required">
          {" "}
          * <span class="sr-only">(required)</span>
        </span>
      ) : null}
    </>
  );
}

export function ParamForm(props: {
  idPrefix: string;
  schema: InputSchema;
  values: ParamValues;
  onChange: (values: ParamValues) => void;
}) {
  const required = new Set(props.schema.required ?? []);
  const entries = Object.entries(props.schema.properties);
  if (entries.length === 0) return <p class="muted">This view takes no parameters.</p>;
  const set = (name: string, value: unknown) => {
    const next = { ...props.values };
    if (value === undefined) delete next[name];
    else next[name] = value;
    props.onChange(next);
  };
  return (
    <div class="param-form">
      {entries.map(([name, property]) => {
        const id = `${props.idPrefix}-${name}`;
        const isRequired = required.has(name);
        const label = <Label name={name} required={isRequired} />;
        const hint =
          [property.description, ...constraints(property)].filter(Boolean).join(" · ") || undefined;
        const value = props.values[name];
        const type = typeOf(property);
        if (type === "integer" || type === "number") {
          return (
            <NumberInput
              key={name}
              id={id}
              label={label}
              integer={type === "integer"}
              min={property.minimum}
              max={property.maximum}
              required={isRequired}
              value={typeof value === "number" ? value : undefined}
              onChange={(v) => set(name, v)}
              hint={hint}
            />
          );
        }
        if (type === "boolean") {
          if (isRequired || property.default !== undefined) {
            return (
              <div class="field" key={name}>
                <label class="check" for={id}>
                  <input
                    id={id}
                    type="checkbox"
                    checked={value === true}
                    aria-describedby={hint ? `${id}-hint` : undefined}
                    onChange={(event) => set(name, event.currentTarget.checked)}
                  />
                  {label}
                </label>
                {hint ? (
                  <span class="hint" id={`${id}-hint`}>
                    {hint}
                  </span>
                ) : null}
              </div>
            );
          }
          return (
            <Field key={name} id={id} label={label} hint={hint}>
              <select
                id={id}
                value={value === undefined ? "" : String(value)}
                aria-describedby={hint ? `${id}-hint` : undefined}
                onChange={(event) => {
                  const v = event.currentTarget.value;
                  set(name, v === "" ? undefined : v === "true");
                }}
              >
                <option value="">— not set —</option>
                <option value="true">true</option>
                <option value="false">false</option>
              </select>
            </Field>
          );
        }
        if (type === "array") {
          const items = Array.isArray(value) ? value.map(String) : undefined;
          const itemEnum = property.items?.enum?.map(String);
          if (itemEnum) {
            return (
              <CheckGroup
                key={name}
                id={id}
                legend={label}
                options={itemEnum}
                value={items}
                onChange={(v) => set(name, v ?? [])}
                hint={hint}
              />
            );
          }
          return (
            <ListInput
              key={name}
              id={id}
              label={label}
              lines
              keepEmpty={value !== undefined}
              required={isRequired}
              value={items}
              onChange={(v) => set(name, v)}
              hint={hint ? `${hint} · one per line` : "One per line."}
            />
          );
        }
        if (property.enum) {
          const options = property.enum.map(String);
          return (
            <Field key={name} id={id} label={label} hint={hint}>
              <select
                id={id}
                value={value === undefined ? "" : String(value)}
                required={isRequired}
                aria-describedby={hint ? `${id}-hint` : undefined}
                onChange={(event) =>
                  set(name, event.currentTarget.value === "" ? undefined : event.currentTarget.value)
                }
              >
                {!isRequired || value === undefined ? <option value="">— not set —</option> : null}
                {options.map((o) => (
                  <option key={o} value={o}>
                    {o}
                  </option>
                ))}
              </select>
            </Field>
          );
        }
        return (
          <Field key={name} id={id} label={label} hint={hint}>
            <input
              id={id}
              type="text"
              required={isRequired}
              minLength={property.minLength}
              maxLength={property.maxLength}
              spellcheck={false}
              placeholder={property.format === "date-time" ? "2026-01-01T00:00:00Z" : undefined}
              value={typeof value === "string" ? value : value === undefined ? "" : String(value)}
              aria-describedby={hint ? `${id}-hint` : undefined}
              onInput={(event) =>
                set(name, event.currentTarget.value === "" ? undefined : event.currentTarget.value)
              }
            />
          </Field>
        );
      })}
    </div>
  );
}
