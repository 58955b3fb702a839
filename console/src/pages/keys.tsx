// /console/keys: the workspace's keys for an admin key (GET /keys): prefix, scope, last use,
// expiry and state; create a read_write or read_only key (shown once, with a copy button and the
// warning) and revoke one behind a confirmation naming it. Another key's scope gets the reason.
import { useState } from "preact/hooks";
import { ApiError, api } from "../api";
import { ErrorNote, LoadStatus, Section } from "../components/common";
import { ActionConfirm, ActionOutcome, useConfirmedAction } from "../components/confirmed-action";
import { DataTable } from "../components/data-table";
import { Age, When } from "../components/time";
import { useApi } from "../components/use-api";
import type { CreatedKey, KeyList, KeySummary, WorkspaceInfo } from "../types";

const SCOPES = [
  { value: "read_only", label: "read_only: reads, never writes" },
  { value: "read_write", label: "read_write: reads and writes records" },
];

function keyState(key: KeySummary): string {
  if (key.revoked_at) return "revoked";
  if (key.expires_at && Date.parse(key.expires_at) <= Date.now()) return "expired";
  return "active";
}

export function KeysPage() {
  const workspace = useApi((signal) => api<WorkspaceInfo>("GET", "/workspace", { signal }), []);
  const scope = workspace.data?.key.scope;
  return (
    <>
      <h1>Keys</h1>
      <LoadStatus of={workspace} />
      {scope === undefined ? null : scope === "admin" ? (
        <KeysManager current={workspace.data?.key.id ?? ""} />
      ) : (
        <p class="note" role="status">
          Only an admin key lists and manages the workspace's keys; this key is {scope}. Sign in with an admin
          key (the workspace's first key is one) to create or revoke keys.
        </p>
      )}
    </>
  );
}

function KeysManager(props: { current: string }) {
  const keys = useApi((signal) => api<KeyList>("GET", "/keys", { signal }), []);
  const [created, setCreated] = useState<CreatedKey>();
  const revoke = useConfirmedAction(async (key: KeySummary) => {
    await api("DELETE", `/keys/${encodeURIComponent(key.id)}`);
    return `Key ${key.name} (${key.prefix ?? key.id.slice(0, 8)}) is revoked: its next request gets 401.`;
  }, keys.reload);
  return (
    <>
      <CreateKey
        onCreated={(key) => {
          setCreated(key);
          revoke.clearNotice();
          keys.reload();
        }}
      />
      {created ? <NewKey created={created} onDone={() => setCreated(undefined)} /> : null}
      <Section title="Keys of this workspace">
        <LoadStatus of={keys} />
        <ActionOutcome action={revoke} />
        {keys.data ? (
          <DataTable
            label="Keys"
            class="keys-table"
            columns={[
              "Name",
              "Prefix",
              "Scope",
              "Created",
              "Last used",
              "Expires",
              "State",
              { label: "Actions", hidden: true },
            ]}
          >
            {keys.data.keys.map((key) => {
              const state = keyState(key);
              return (
                <tr key={key.id}>
                  <td>
                    {key.name}
                    {key.id === props.current ? <span class="muted small"> (this key)</span> : null}
                  </td>
                  <td>{key.prefix ? <code>{key.prefix}…</code> : <span class="muted">—</span>}</td>
                  <td>{key.scope}</td>
                  <td class="nowrap">
                    <Age at={key.created_at} />
                  </td>
                  <td class="nowrap">
                    {key.last_used_at ? <Age at={key.last_used_at} /> : <span class="muted">never</span>}
                  </td>
                  <td class="nowrap">
                    {key.expires_at ? <When at={key.expires_at} /> : <span class="muted">never</span>}
                  </td>
                  <td>
                    <span class={`badge ${state === "active" ? "succeeded" : "dead"}`}>{state}</span>
                  </td>
                  <td>
                    {state === "revoked" ? null : (
                      <button
                        type="button"
                        class="danger"
                        onClick={() => revoke.ask(key)}
                        aria-label={`Revoke ${key.name}`}
                      >
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              );
            })}
          </DataTable>
        ) : null}
      </Section>
      <ActionConfirm action={revoke} title="Revoke this key?" confirmLabel="Revoke key">
        {(key) => (
          <p>
            The key <strong>{key.name}</strong> (<code>{key.prefix ?? key.id}…</code>, {key.scope}) stops
            working at once: its next request gets 401, and it cannot be restored.
            {key.id === props.current
              ? " It is the key this console is signed in with: you will be signed out."
              : ""}
          </p>
        )}
      </ActionConfirm>
    </>
  );
}

function CreateKey(props: { onCreated: (key: CreatedKey) => void }) {
  const [name, setName] = useState("");
  const [scope, setScope] = useState("read_only");
  const [expiresIn, setExpiresIn] = useState("");
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  /** A refusal naming a field shows beside it; anything else above the form. */
  const fieldError = (field: string) =>
    error instanceof ApiError
      ? ((error.problem.errors as { path: string; message: string }[] | undefined) ?? []).find((e) =>
          e.path.endsWith(field),
        )?.message
      : undefined;
  return (
    <Section title="Create a key">
      <form
        class="field-row keys-create"
        onSubmit={async (event) => {
          event.preventDefault();
          setBusy(true);
          setError(undefined);
          try {
            const body = {
              name: name.trim(),
              scope,
              ...(expiresIn.trim() ? { expires_in: expiresIn.trim() } : {}),
            };
            props.onCreated(await api<CreatedKey>("POST", "/keys", { body }));
            setName("");
            setExpiresIn("");
          } catch (caught) {
            setError(caught);
          } finally {
            setBusy(false);
          }
        }}
      >
        <div class="field">
          <label for="key-name">Name</label>
          <input
            id="key-name"
            required
            maxLength={400}
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
            placeholder="e.g. support agent"
          />
          {fieldError("name") ? <span class="error-text">{fieldError("name")}</span> : null}
        </div>
        <div class="field">
          <label for="key-scope">Scope</label>
          <select id="key-scope" value={scope} onChange={(e) => setScope(e.currentTarget.value)}>
            {SCOPES.map((s) => (
              <option key={s.value} value={s.value}>
                {s.label}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="key-expires">Expires in (optional)</label>
          <input
            id="key-expires"
            value={expiresIn}
            onInput={(e) => setExpiresIn(e.currentTarget.value)}
            placeholder="e.g. 30d, 12h"
          />
          {fieldError("expires_in") ? <span class="error-text">{fieldError("expires_in")}</span> : null}
        </div>
        <div class="field">
          <button type="submit" disabled={busy || name.trim() === ""}>
            Create key
          </button>
        </div>
      </form>
      {fieldError("name") || fieldError("expires_in") ? null : <ErrorNote error={error} />}
    </Section>
  );
}

function NewKey(props: { created: CreatedKey; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  return (
    <section class="card new-key" aria-label="New key">
      <p class="note" role="alert">
        The key <strong>{props.created.name}</strong> ({props.created.scope}) is shown only this once: copy it
        now and keep it like a password. Engram stores only its digest and cannot show it again.
      </p>
      <div class="field-row">
        <code class="new-key-value" data-testid="new-key">
          {props.created.api_key}
        </code>
        <button
          type="button"
          onClick={() =>
            navigator.clipboard.writeText(props.created.api_key).then(
              () => setCopied(true),
              () => setCopied(false),
            )
          }
        >
          {copied ? "Copied" : "Copy"}
        </button>
        <button type="button" onClick={props.onDone}>
          I stored it
        </button>
      </div>
    </section>
  );
}
