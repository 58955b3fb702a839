// Labelled form inputs (the search playground, the view parameter form, the worker's filters). Those
// whose text may not parse yet (a number being typed, a JSON object, a rank expression in YAML, a
// comma list) keep their own text and report a value only when the text parses; a value changed
// from outside (the JSON editor, a reset) replaces the text unless the text already means that
// value, so typing is never reformatted under the cursor and an invalid edit never clobbers it.
import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import YAML from "yaml";

/** JSON equality of two plain values (key order as written, which parse and print both keep). */
export function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** A parse that throws an Error whose message is shown beside the input. */
export type Parse<T> = (text: string) => T;

export interface SyncedText {
  text: string;
  error: string | undefined;
  edit: (text: string) => void;
}

const UNPARSED = Symbol("unparsed");

export function useSyncedText<T>(
  value: T,
  print: (value: T) => string,
  parse: Parse<T>,
  onChange: (value: T) => void,
  /** Anything else that changes how the value prints (a YAML/JSON switch). */
  printKey = "",
): SyncedText {
  const [text, setText] = useState(() => print(value));
  const [error, setError] = useState<string>();
  const valueKey = JSON.stringify(value) ?? "undefined";
  useEffect(() => {
    let current: unknown = UNPARSED;
    try {
      current = parse(text);
    } catch {
      // an invalid text is replaced by the new value
    }
    if (current === UNPARSED || !sameJson(current, value)) {
      setText(print(value));
      setError(undefined);
    }
  }, [valueKey]);
  useEffect(() => {
    setText(print(value));
    setError(undefined);
  }, [printKey]);
  const edit = (next: string) => {
    setText(next);
    let parsed: T;
    try {
      parsed = parse(next);
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : String(caught));
      return;
    }
    setError(undefined);
    onChange(parsed);
  };
  return { text, error, edit };
}

/** A field's label, its control, an optional hint and the parse error (announced). */
export function Field(props: {
  id: string;
  label: ComponentChildren;
  hint?: ComponentChildren;
  error?: string;
  children: ComponentChildren;
  class?: string;
}) {
  return (
    <div class={`field ${props.class ?? ""}`}>
      <label for={props.id}>{props.label}</label>
      {props.children}
      {props.hint ? (
        <span class="hint" id={`${props.id}-hint`}>
          {props.hint}
        </span>
      ) : null}
      {props.error ? (
        <span class="field-error" id={`${props.id}-error`} role="alert">
          {props.error}
        </span>
      ) : null}
    </div>
  );
}

function describedBy(id: string, hint: unknown, error: unknown): string | undefined {
  const ids = [hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ");
  return ids || undefined;
}

/** A line of text; empty is undefined. */
export function TextInput(props: {
  id: string;
  label: ComponentChildren;
  value: string | undefined;
  onChange: (value: string | undefined) => void;
  placeholder?: string;
  hint?: ComponentChildren;
  list?: string;
}) {
  return (
    <Field id={props.id} label={props.label} hint={props.hint}>
      <input
        id={props.id}
        type="text"
        spellcheck={false}
        list={props.list}
        value={props.value ?? ""}
        placeholder={props.placeholder}
        aria-describedby={props.hint ? `${props.id}-hint` : undefined}
        onInput={(event) =>
          props.onChange(event.currentTarget.value === "" ? undefined : event.currentTarget.value)
        }
      />
    </Field>
  );
}

const parseNumber =
  (integer: boolean): Parse<number | undefined> =>
  (text) => {
    if (text.trim() === "") return undefined;
    const n = Number(text);
    if (!Number.isFinite(n)) throw new Error("not a number");
    if (integer && !Number.isInteger(n)) throw new Error("a whole number");
    return n;
  };

export function NumberInput(props: {
  id: string;
  label: ComponentChildren;
  value: number | undefined;
  onChange: (value: number | undefined) => void;
  integer?: boolean;
  min?: number;
  max?: number;
  hint?: ComponentChildren;
  placeholder?: string;
  required?: boolean;
  class?: string;
}) {
  const synced = useSyncedText(
    props.value,
    (v) => (v === undefined ? "" : String(v)),
    parseNumber(props.integer ?? false),
    props.onChange,
  );
  return (
    <Field id={props.id} label={props.label} hint={props.hint} error={synced.error} class={props.class}>
      <input
        id={props.id}
        type="number"
        inputMode={props.integer ? "numeric" : "decimal"}
        step={props.integer ? 1 : "any"}
        min={props.min}
        max={props.max}
        required={props.required}
        placeholder={props.placeholder}
        value={synced.text}
        aria-invalid={synced.error ? true : undefined}
        aria-describedby={describedBy(props.id, props.hint, synced.error)}
        onInput={(event) => synced.edit(event.currentTarget.value)}
      />
    </Field>
  );
}

/** A list of names typed as "a, b, c" (or one per line with `lines`). */
export function ListInput(props: {
  id: string;
  label: ComponentChildren;
  value: string[] | undefined;
  onChange: (value: string[] | undefined) => void;
  hint?: ComponentChildren;
  placeholder?: string;
  lines?: boolean;
  required?: boolean;
  /** Keep an empty list as [] instead of leaving the key out. */
  keepEmpty?: boolean;
}) {
  const separator = props.lines ? /\n/ : /,/;
  const synced = useSyncedText(
    props.value,
    (v) => (v ?? []).join(props.lines ? "\n" : ", "),
    (text) => {
      const items = text
        .split(separator)
        .map((s) => s.trim())
        .filter((s) => s !== "");
      return items.length === 0 && !props.keepEmpty ? undefined : items;
    },
    props.onChange,
  );
  const common = {
    id: props.id,
    value: synced.text,
    placeholder: props.placeholder,
    required: props.required,
    spellcheck: false,
    "aria-describedby": describedBy(props.id, props.hint, synced.error),
  };
  return (
    <Field id={props.id} label={props.label} hint={props.hint} error={synced.error}>
      {props.lines ? (
        <textarea
          {...common}
          class="short"
          rows={3}
          onInput={(event) => synced.edit(event.currentTarget.value)}
        />
      ) : (
        <input {...common} type="text" onInput={(event) => synced.edit(event.currentTarget.value)} />
      )}
    </Field>
  );
}

function flatJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(flatJson).join(", ")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}: ${flatJson(v)}`).join(", ")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** Prints a value as compact JSON: a list or object that fits on a line stays on one line. */
export function compactJson(value: unknown, indent = "", width = 72, expandRoot = false): string {
  if (value === undefined) return "";
  const flat = flatJson(value);
  const fits = flat.length + indent.length <= width && !expandRoot;
  if (value === null || typeof value !== "object" || fits) return flat;
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    return `[\n${value.map((v) => inner + compactJson(v, inner, width)).join(",\n")}\n${indent}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return "{}";
  return `{\n${entries.map(([k, v]) => `${inner}${JSON.stringify(k)}: ${compactJson(v, inner, width - JSON.stringify(k).length - 2)}`).join(",\n")}\n${indent}}`;
}

/** YAML with every list or map that fits in `width` characters written inline ([a, b]). */
export function compactYaml(value: unknown, width = 60): string {
  if (value === undefined) return "";
  const doc = new YAML.Document(value);
  YAML.visit(doc, {
    Seq(_, node) {
      if (JSON.stringify(node.toJSON()).length <= width) node.flow = true;
    },
    Map(_, node) {
      if (JSON.stringify(node.toJSON()).length <= width) node.flow = true;
    },
  });
  return doc.toString({ flowCollectionPadding: false, lineWidth: 0 });
}

export type TextFormat = "json" | "yaml";

/** Parses JSON (or YAML) text into a value; blank is undefined. Errors name the line. */
export function parseStructured(text: string, format: TextFormat): unknown {
  if (text.trim() === "") return undefined;
  if (format === "json") {
    try {
      return JSON.parse(text);
    } catch (caught) {
      throw new Error(`Invalid JSON: ${caught instanceof Error ? caught.message : String(caught)}`);
    }
  }
  const doc = YAML.parseDocument(text, { prettyErrors: true });
  if (doc.errors.length > 0) throw new Error(`Invalid YAML: ${doc.errors[0]?.message.split("\n")[0]}`);
  return doc.toJS();
}

export function printStructured(value: unknown, format: TextFormat, width = 60, expandRoot = false): string {
  if (value === undefined) return "";
  return format === "json" ? compactJson(value, "", width, expandRoot) : compactYaml(value, width);
}

/**
 * A JSON (or YAML) value in a textarea. `check` refuses a parsed value of the wrong shape (its
 * message is shown; the value is not reported).
 */
export function StructuredInput(props: {
  id: string;
  label: ComponentChildren;
  value: unknown;
  onChange: (value: unknown) => void;
  format?: TextFormat;
  check?: (value: unknown) => string | undefined;
  hint?: ComponentChildren;
  rows?: number;
  placeholder?: string;
  class?: string;
  onRun?: () => void;
  /** Lists and objects that fit in this many characters print on one line. */
  width?: number;
  /** The outermost list or object always takes one line per entry. */
  expandRoot?: boolean;
}) {
  const format = props.format ?? "json";
  const synced = useSyncedText(
    props.value,
    (v) => printStructured(v, format, props.width, props.expandRoot),
    (text) => {
      const parsed = parseStructured(text, format);
      const problem = parsed === undefined ? undefined : props.check?.(parsed);
      if (problem) throw new Error(problem);
      return parsed;
    },
    props.onChange,
    format,
  );
  return (
    <Field id={props.id} label={props.label} hint={props.hint} error={synced.error} class={props.class}>
      <textarea
        id={props.id}
        rows={props.rows ?? 4}
        spellcheck={false}
        autoComplete="off"
        placeholder={props.placeholder}
        value={synced.text}
        aria-invalid={synced.error ? true : undefined}
        aria-describedby={describedBy(props.id, props.hint, synced.error)}
        onInput={(event) => synced.edit(event.currentTarget.value)}
        onKeyDown={(event) => {
          if (props.onRun && event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
            event.preventDefault();
            props.onRun();
          }
        }}
      />
    </Field>
  );
}

/** A group of checkboxes choosing a subset of `options` (values outside them are kept and shown). */
export function CheckGroup(props: {
  id: string;
  legend: ComponentChildren;
  options: string[];
  value: string[] | undefined;
  onChange: (value: string[] | undefined) => void;
  hint?: ComponentChildren;
  empty?: ComponentChildren;
}) {
  const chosen = props.value ?? [];
  const all = [...props.options, ...chosen.filter((v) => !props.options.includes(v))];
  const toggle = (option: string, on: boolean) => {
    const next = on
      ? all.filter((o) => o === option || chosen.includes(o))
      : chosen.filter((o) => o !== option);
    props.onChange(next.length === 0 ? undefined : next);
  };
  return (
    <fieldset class="check-group" aria-describedby={props.hint ? `${props.id}-hint` : undefined}>
      <legend>{props.legend}</legend>
      {all.length === 0 ? <span class="muted">{props.empty ?? "none"}</span> : null}
      {all.map((option) => (
        <label class="check" key={option}>
          <input
            type="checkbox"
            name={props.id}
            value={option}
            checked={chosen.includes(option)}
            onChange={(event) => toggle(option, event.currentTarget.checked)}
          />
          {option}
        </label>
      ))}
      {props.hint ? (
        <span class="hint" id={`${props.id}-hint`}>
          {props.hint}
        </span>
      ) : null}
    </fieldset>
  );
}

/** A select over `options` with an empty first choice meaning "not set". */
export function OptionSelect(props: {
  id: string;
  label: ComponentChildren;
  value: string | undefined;
  options: readonly string[];
  onChange: (value: string | undefined) => void;
  unset?: string;
  hint?: ComponentChildren;
  required?: boolean;
}) {
  return (
    <Field id={props.id} label={props.label} hint={props.hint}>
      <select
        id={props.id}
        value={props.value ?? ""}
        required={props.required}
        aria-describedby={props.hint ? `${props.id}-hint` : undefined}
        onChange={(event) => props.onChange(event.currentTarget.value || undefined)}
      >
        {props.unset !== undefined ? <option value="">{props.unset}</option> : null}
        {props.value !== undefined && !props.options.includes(props.value) ? (
          <option value={props.value}>{props.value}</option>
        ) : null}
        {props.options.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    </Field>
  );
}
