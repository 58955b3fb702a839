// /console/catalog?tab=definitions|discovery|compatibility|prune|publish: the active package, its
// definitions as normalized YAML, discovery, the compatibility and prune reports, and publishing
// an uploaded catalog directory after its dry run.

import type { ComponentChildren } from "preact";
import { api } from "../api";
import { DefinitionsTab } from "../components/catalog-definitions";
import { DiscoveryTab } from "../components/catalog-discovery";
import { PublishTab } from "../components/catalog-publish";
import { CompatibilityView, PruneView } from "../components/catalog-reports";
import { ErrorNote, Loading, LoadStatus, RefreshButton, Section } from "../components/common";
import { Link } from "../components/link";
import { Age } from "../components/time";
import { useApi } from "../components/use-api";
import { href, type Route } from "../router";
import type { CatalogSummary, CompatibilityReport, PruneReport, WorkspaceInfo } from "../types";

/** GET /catalog, or null when no catalog is published yet. */
export function readCatalogSummary(signal: AbortSignal): Promise<CatalogSummary | null> {
  return api<CatalogSummary>("GET", "/catalog", { signal }).catch((error) => {
    if (error.code === "no_catalog") return null;
    throw error;
  });
}

const TABS: { id: string; label: string }[] = [
  { id: "definitions", label: "Definitions" },
  { id: "discovery", label: "Discovery" },
  { id: "compatibility", label: "Compatibility" },
  { id: "prune", label: "Prune" },
  { id: "publish", label: "Publish" },
];

export function CatalogPage(props: { route: Route }) {
  const { route } = props;
  const requested = route.query.get("tab") ?? "definitions";
  const tab = TABS.some((t) => t.id === requested) ? requested : "definitions";
  const summary = useApi(readCatalogSummary, []);
  const workspace = useApi((signal) => api<WorkspaceInfo>("GET", "/workspace", { signal }), []);
  const s = summary.data;
  const none = s === null;
  return (
    <>
      <h1>Catalog</h1>
      <ErrorNote error={summary.error} />
      <Loading when={summary.loading && s === undefined} />
      {s ? (
        <dl class="facts cat-summary" aria-label="Active package">
          <dt>Active package</dt>
          <dd>
            <strong data-testid="active-package">{s.package}</strong>
          </dd>
          <dt>Catalog hash</dt>
          <dd>
            <code class="hash">{s.catalog_hash}</code>
          </dd>
          <dt>Published</dt>
          <dd>
            <Age at={s.metadata.installed_at} />
          </dd>
          <dt>Definitions</dt>
          <dd>
            {Object.entries(s.metadata.counts)
              .map(([family, n]) => `${n} ${family}`)
              .join(", ")}
          </dd>
        </dl>
      ) : null}
      {none ? (
        <p class="muted">
          No catalog is published in this workspace yet:{" "}
          <Link href={href("/catalog", { tab: "publish" })}>publish one</Link>.
        </p>
      ) : null}
      <nav class="tabs" aria-label="Catalog sections">
        {TABS.map((t) => (
          <Link
            key={t.id}
            href={href("/catalog", { tab: t.id === "definitions" ? undefined : t.id })}
            current={t.id === tab}
          >
            {t.label}
          </Link>
        ))}
      </nav>
      {tab === "publish" ? (
        <PublishTab active={s?.package} workspace={workspace.data?.name} onPublished={summary.reload} />
      ) : none ? null : tab === "definitions" ? (
        <DefinitionsTab route={route} hashes={s?.metadata.definitions} />
      ) : tab === "discovery" ? (
        <DiscoveryTab route={route} />
      ) : tab === "compatibility" ? (
        <CompatibilityTab />
      ) : (
        <PruneTab />
      )}
    </>
  );
}

function CompatibilityTab() {
  return (
    <ReportTab<CompatibilityReport>
      title="Compatibility of the installed catalog"
      path="/catalog/compatibility"
      intro="The stored records checked against the contracts of the active package."
    >
      {(report) => <CompatibilityView report={report} />}
    </ReportTab>
  );
}

function PruneTab() {
  return (
    <ReportTab<PruneReport> title="Prune report" path="/catalog/prune">
      {(report) => <PruneView report={report} />}
    </ReportTab>
  );
}

/** A report the API computes on request (GET `path`), shown by `children`, with a Refresh button. */
function ReportTab<T>(props: {
  title: string;
  path: string;
  intro?: string;
  children: (report: T) => ComponentChildren;
}) {
  const report = useApi((signal) => api<T>("GET", props.path, { signal }), [props.path]);
  return (
    <Section title={props.title} actions={<RefreshButton of={report} />}>
      {props.intro ? <p class="muted">{props.intro}</p> : null}
      <LoadStatus of={report} />
      {report.data ? props.children(report.data) : null}
    </Section>
  );
}
