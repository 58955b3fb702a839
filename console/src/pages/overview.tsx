import { api } from "../api";
import { ErrorNote, LoadStatus, Section } from "../components/common";
import { Link } from "../components/link";
import { OverviewCharts } from "../components/overview-charts";
import { Age, When } from "../components/time";
import { useApi, useLiveReload } from "../components/use-api";
import { JOB_STATES } from "../components/worker-jobs";
import { href } from "../router";
import type { WorkspaceInfo } from "../types";
import { readCatalogSummary } from "./catalog";

/** How the overview names a key's scope (docs/api.md "Keys: several per workspace"). */
const SCOPE_LABELS = { admin: "admin", read_write: "read-write", read_only: "read-only" } as const;

export function OverviewPage() {
  const workspace = useApi((signal) => api<WorkspaceInfo>("GET", "/workspace", { signal }), []);
  useLiveReload(workspace.reload);
  const catalog = useApi(readCatalogSummary, []);
  const w = workspace.data;
  return (
    <>
      <h1>Overview</h1>
      <LoadStatus of={workspace} />
      {w ? (
        <div class="grid">
          <Section title="Workspace">
            <dl class="facts">
              <dt>Name</dt>
              <dd data-testid="workspace-name">{w.name}</dd>
              <dt>Id</dt>
              <dd>
                <code>{w.id}</code>
              </dd>
              <dt>Created</dt>
              <dd>
                <Age at={w.created_at} />
              </dd>
              <dt>Signed in with</dt>
              <dd data-testid="key-scope">
                key <code>{w.key.name}</code>, {SCOPE_LABELS[w.key.scope]}
                {w.key.expires_at ? (
                  <>
                    , expires <When at={w.key.expires_at} />
                  </>
                ) : null}
              </dd>
            </dl>
          </Section>
          <Section title="Catalog">
            <ErrorNote error={catalog.error} />
            {catalog.data === null ? <p class="muted">No catalog is published yet.</p> : null}
            {catalog.data ? (
              <dl class="facts">
                <dt>Package</dt>
                <dd>
                  <Link href={href("/catalog")}>{catalog.data.package}</Link>
                </dd>
                <dt>Catalog hash</dt>
                <dd>
                  <code class="hash">{catalog.data.catalog_hash}</code>
                </dd>
                <dt>Published</dt>
                <dd>
                  <Age at={catalog.data.metadata.installed_at} />
                </dd>
              </dl>
            ) : null}
          </Section>
          <Section title="Memory">
            <dl class="facts">
              <dt>Records</dt>
              <dd data-testid="count-records">{w.counts.records}</dd>
              <dt>Entities</dt>
              <dd>
                <Link href={href("/entities")}>{w.counts.entities}</Link>
              </dd>
              <dt>Not yet ready</dt>
              <dd data-testid="count-unready">{w.counts.unready}</dd>
              <dt>Oldest unready</dt>
              <dd>
                <Age at={w.oldest_unready_at} />
              </dd>
            </dl>
          </Section>
          <Section title="Jobs">
            <dl class="facts">
              {JOB_STATES.map((state) => {
                const n = w.counts.jobs[state];
                return [
                  <dt key={`${state}-t`}>{state}</dt>,
                  <dd key={`${state}-d`} class={state === "dead" && n > 0 ? "alert" : undefined}>
                    <Link href={href("/worker", { state })}>{n}</Link>
                  </dd>,
                ];
              })}
            </dl>
          </Section>
        </div>
      ) : null}
      {w ? <OverviewCharts workspace={workspace} /> : null}
    </>
  );
}
