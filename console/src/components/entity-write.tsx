// The entity page's Write tab: add a record of any active collection to the entity, or correct a
// keyed fact (a new version of its key, prefilled from the record it replaces: ?from=ID), through
// POST /records as any client writes. The fields follow the collection: a key for keyed (required)
// and mixed (optional) collections, none for events; content as a form generated from the
// collection's schema when its properties are plain values, else as JSON. The write's validation
// errors are shown on the fields they name.
import { useEffect, useState } from "preact/hooks";
import { ApiError, api } from "../api";
import { useReadOnly, writeControl } from "../read-only";
import { href } from "../router";
import type { CollectionsAnswer, FullRecord, InputSchema } from "../types";
import { ErrorNote, LoadStatus, Section } from "./common";
import { Field, StructuredInput } from "./form-inputs";
import { Link } from "./link";
import { ParamForm, type ParamValues } from "./param-form";
import { RecordLink } from "./records-links";
import { useApi } from "./use-api";

type Collection = CollectionsAnswer["collections"][number];

const PLAIN = new Set(["string", "integer", "number", "boolean"]);

/** The collection's schema as a parameter form's, when every property is a plain value or a list of strings. */
function formSchema(schema: unknown): InputSchema | undefined {
  const s = schema as {
    type?: unknown;
    properties?: Record<string, { type?: unknown; items?: { type?: unknown } }>;
  };
  if (s.type !== "object" || !s.properties || Object.keys(s.properties).length === 0) return undefined;
  const plain = Object.values(s.properties).every((p) =>
    p.type === "array" ? p.items?.type === "string" : typeof p.type === "string" && PLAIN.has(p.type),
  );
  return plain ? (schema as InputSchema) : undefined;
}

interface Draft {
  collection: string;
  type: string;
  key: string;
  text: string;
  content: ParamValues;
  occurred_at: string;
}

const EMPTY: Draft = { collection: "", type: "", key: "", text: "", content: {}, occurred_at: "" };

/** Field errors of a refused write, by the row field they name (records.0.<field>…). */
function fieldErrors(error: unknown): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  if (!(error instanceof ApiError)) return out;
  for (const e of (error.problem.errors as { path: string; message: string }[] | undefined) ?? []) {
    const [, , field, ...rest] = e.path.split(".");
    if (field === undefined) continue;
    const message = rest.length > 0 ? `${rest.join(".")}: ${e.message}` : e.message;
    out[field] = [...(out[field] ?? []), message];
  }
  return out;
}

export function EntityWriteTab(props: { entity: string; from: string; collection: string }) {
  const readOnly = useReadOnly();
  const collections = useApi((signal) => api<CollectionsAnswer>("GET", "/collections", { signal }), []);
  const source = useApi(
    (signal) =>
      props.from
        ? api<FullRecord>("GET", `/records/${encodeURIComponent(props.from)}`, { signal })
        : Promise.resolve(undefined),
    [props.from],
  );
  const active = (collections.data?.collections ?? []).filter((c) => c.active);
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [error, setError] = useState<unknown>();
  const [written, setWritten] = useState<{ id: string; draft: Draft }>();
  const [busy, setBusy] = useState(false);

  // The record being corrected fills the form once it is read; otherwise ?collection= preselects.
  useEffect(() => {
    const r = source.data;
    if (r) {
      setDraft({
        collection: r.collection,
        type: r.type,
        key: r.key ?? "",
        text: r.text,
        content: r.content as ParamValues,
        occurred_at: "",
      });
    } else if (!props.from) {
      setDraft({ ...EMPTY, collection: props.collection });
    }
  }, [source.data, props.from, props.collection]);

  const chosen: Collection | undefined = active.find((c) => c.name === draft.collection);
  const schema = chosen ? formSchema(chosen.schema) : undefined;
  const errors = fieldErrors(error);
  const set = (changes: Partial<Draft>) => setDraft((d) => ({ ...d, ...changes }));
  const submit = async () => {
    setBusy(true);
    setError(undefined);
    setWritten(undefined);
    const row: Record<string, unknown> = {
      collection: draft.collection,
      entity: props.entity,
      type: draft.type.trim(),
      text: draft.text,
      content: draft.content,
    };
    if (chosen?.mode !== "event" && draft.key.trim()) row.key = draft.key.trim();
    if (draft.occurred_at.trim()) row.occurred_at = draft.occurred_at.trim();
    try {
      const answer = await api<{ inserted: { id: string }[] }>("POST", "/records", {
        body: { records: [row] },
      });
      setWritten({ id: answer.inserted[0]?.id ?? "", draft });
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  const unplaced = Object.keys(errors).some(
    (f) => !["collection", "type", "key", "text", "content", "occurred_at"].includes(f),
  );

  return (
    <Section title={props.from ? "Correct a fact" : "Add a record"}>
      <LoadStatus of={collections} />
      <ErrorNote error={source.error} />
      {props.from && source.data ? (
        <p class="muted">
          Writes a new version of <code>{source.data.key}</code> in {source.data.collection}: it supersedes{" "}
          <RecordLink id={props.from} /> (the key's history keeps the older value).
        </p>
      ) : null}
      <form
        class="write-form"
        onSubmit={(event) => {
          event.preventDefault();
          void submit();
        }}
      >
        <Field id="write-collection" label="Collection" error={errors.collection?.join("; ")}>
          <select
            id="write-collection"
            required
            value={draft.collection}
            disabled={Boolean(props.from)}
            onChange={(e) => set({ collection: e.currentTarget.value, content: {} })}
          >
            <option value="">— choose a collection —</option>
            {active.map((c) => (
              <option key={c.name} value={c.name}>
                {c.name} ({c.mode})
              </option>
            ))}
          </select>
        </Field>
        {chosen ? (
          <>
            <Field
              id="write-type"
              label="Type"
              hint="what kind of record: ticket, fact, note…"
              error={errors.type?.join("; ")}
            >
              <input
                id="write-type"
                required
                maxLength={128}
                value={draft.type}
                onInput={(e) => set({ type: e.currentTarget.value })}
              />
            </Field>
            {chosen.mode === "event" ? null : (
              <Field
                id="write-key"
                label={chosen.mode === "keyed" ? "Key" : "Key (optional)"}
                hint="one current value per entity and key: a key already set gets a new version"
                error={errors.key?.join("; ")}
              >
                <input
                  id="write-key"
                  required={chosen.mode === "keyed"}
                  maxLength={256}
                  value={draft.key}
                  disabled={Boolean(props.from)}
                  onInput={(e) => set({ key: e.currentTarget.value })}
                />
              </Field>
            )}
            <Field
              id="write-text"
              label="Text"
              hint="what search and answers read"
              error={errors.text?.join("; ")}
            >
              <textarea
                id="write-text"
                rows={3}
                value={draft.text}
                onInput={(e) => set({ text: e.currentTarget.value })}
              />
            </Field>
            <fieldset class="write-content">
              <legend>Content ({chosen.name}'s schema)</legend>
              {schema ? (
                <ParamForm
                  idPrefix="write-content"
                  schema={schema}
                  values={draft.content}
                  onChange={(content) => set({ content })}
                />
              ) : (
                <StructuredInput
                  id="write-content-json"
                  label="Content (JSON)"
                  value={draft.content}
                  onChange={(content) => set({ content: (content ?? {}) as ParamValues })}
                />
              )}
              {errors.content ? (
                <p class="field-error" role="alert">
                  {errors.content.join("; ")}
                </p>
              ) : null}
            </fieldset>
            <Field
              id="write-occurred"
              label="Occurred at (optional)"
              hint="when it happened, with a timezone; default now"
              error={errors.occurred_at?.join("; ")}
            >
              <input
                id="write-occurred"
                placeholder="2026-01-01T09:00:00Z"
                value={draft.occurred_at}
                onInput={(e) => set({ occurred_at: e.currentTarget.value })}
              />
            </Field>
          </>
        ) : null}
        <div class="actions">
          <button type="submit" {...writeControl(readOnly, busy || !chosen)}>
            {props.from ? "Write the correction" : "Add record"}
          </button>
        </div>
      </form>
      {error && (Object.keys(errors).length === 0 || unplaced) ? <ErrorNote error={error} /> : null}
      {written ? (
        <p class="ok-note" role="status">
          Written: <RecordLink id={written.id} />.{" "}
          {written.draft.key && chosen?.mode !== "event" ? (
            <Link
              href={href("/entity", {
                entity: props.entity,
                tab: "history",
                collection: written.draft.collection,
                key: written.draft.key,
              })}
            >
              History of {written.draft.key}
            </Link>
          ) : (
            <Link href={href("/entity", { entity: props.entity, tab: "timeline" })}>Timeline</Link>
          )}
        </p>
      ) : null}
    </Section>
  );
}
