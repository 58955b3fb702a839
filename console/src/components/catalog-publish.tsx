// The catalog page's publish tab: read a catalog directory chosen in the browser into POST
// /catalog's body (every file's path relative to the directory, hidden ones skipped, as
// `engram catalog publish` reads one), show the dry run's compatibility report, then publish on
// confirmation and show what was installed.
import { useEffect, useRef, useState } from "preact/hooks";
import { parse } from "yaml";
import { api } from "../api";
import { useReadOnly, writeControl } from "../read-only";
import type { CompatibilityReport, PublishResult } from "../types";
import { DefinitionsDiffView } from "./catalog-diff";
import { CatalogWarnings, CompatibilityView, PublishProblem, verdictText } from "./catalog-reports";
import { Confirm, Loading, Section } from "./common";
import { DataTable } from "./data-table";

interface Upload {
  /** The chosen directory's name. */
  root: string;
  files: Record<string, string>;
  /** Hidden files and folders, left out like the CLI leaves them out. */
  skipped: string[];
  /** name@version of every package manifest found, newest version first. */
  packages: string[];
  /** Manifests that did not parse (the dry run reports them properly). */
  unreadable: string[];
}

/** Compares semantic versions, newest first ("1.10.0" before "1.9.0", a release before its rc). */
export function newestFirst(a: string, b: string): number {
  const split = (v: string) => {
    const [core = "", pre] = v.split("+")[0]?.split(/-(.*)/s) ?? [];
    return { core: core.split(".").map((n) => Number.parseInt(n, 10) || 0), pre };
  };
  const x = split(a);
  const y = split(b);
  for (let i = 0; i < 3; i++) {
    const d = (y.core[i] ?? 0) - (x.core[i] ?? 0);
    if (d !== 0) return d;
  }
  if (x.pre === y.pre) return 0;
  if (x.pre === undefined) return -1;
  if (y.pre === undefined) return 1;
  return y.pre.localeCompare(x.pre, undefined, { numeric: true });
}

export async function readDirectory(list: ArrayLike<File>): Promise<Upload> {
  const files: Record<string, string> = {};
  const skipped: string[] = [];
  let root = "";
  for (const file of Array.from(list)) {
    const parts = (file.webkitRelativePath || file.name).split("/");
    // webkitRelativePath starts with the chosen directory's own name.
    if (parts.length > 1) root = parts.shift() ?? root;
    const path = parts.join("/");
    if (parts.some((part) => part.startsWith("."))) {
      skipped.push(path);
      continue;
    }
    files[path] = await file.text();
  }
  const found: { name: string; version: string }[] = [];
  const unreadable: string[] = [];
  for (const [path, text] of Object.entries(files)) {
    if (!/^packages\/[^/]+\.ya?ml$/.test(path)) continue;
    try {
      const manifest = parse(text) as { name?: unknown; version?: unknown } | null;
      if (typeof manifest?.name === "string" && typeof manifest.version === "string")
        found.push(manifest as never);
      else unreadable.push(path);
    } catch {
      unreadable.push(path);
    }
  }
  const packages = found
    .sort((a, b) => a.name.localeCompare(b.name) || newestFirst(a.version, b.version))
    .map((m) => `${m.name}@${m.version}`);
  return { root, files, skipped, packages, unreadable };
}

export function PublishTab(props: {
  active: string | undefined;
  workspace: string | undefined;
  onPublished: () => void;
}) {
  const readOnly = useReadOnly();
  const input = useRef<HTMLInputElement>(null);
  const [upload, setUpload] = useState<Upload>();
  const [reading, setReading] = useState(false);
  const [selected, setSelected] = useState("");
  const [checking, setChecking] = useState(false);
  const [report, setReport] = useState<{ package: string; report: CompatibilityReport }>();
  const [problem, setProblem] = useState<{ during: string; error: unknown }>();
  const [confirming, setConfirming] = useState(false);
  const [publishing, setPublishing] = useState(false);
  const [result, setResult] = useState<PublishResult>();

  useEffect(() => {
    // Not in Preact's JSX types: set on the element (Playwright's setInputFiles needs it there too).
    if (input.current) input.current.webkitdirectory = true;
  }, []);

  const dryRun = async (files: Record<string, string>, pkg: string) => {
    setChecking(true);
    setProblem(undefined);
    setReport(undefined);
    setResult(undefined);
    try {
      const answer = await api<CompatibilityReport>("POST", "/catalog", {
        query: { dry_run: true, diff: true },
        body: { package: pkg, files },
      });
      setReport({ package: pkg, report: answer });
    } catch (error) {
      setProblem({ during: "Dry run refused", error });
    } finally {
      setChecking(false);
    }
  };

  const choose = async (list: FileList | null) => {
    if (!list || list.length === 0) return;
    setReading(true);
    setProblem(undefined);
    setReport(undefined);
    setResult(undefined);
    try {
      const read = await readDirectory(list);
      setUpload(read);
      const pkg = read.packages[0] ?? "";
      setSelected(pkg);
      if (pkg) await dryRun(read.files, pkg);
    } catch (error) {
      setProblem({ during: "Could not read the directory", error });
    } finally {
      setReading(false);
    }
  };

  const publish = async () => {
    setConfirming(false);
    if (!upload || !selected) return;
    setPublishing(true);
    setProblem(undefined);
    try {
      const answer = await api<PublishResult>("POST", "/catalog", {
        body: { package: selected, files: upload.files },
      });
      setResult(answer);
      setReport(undefined);
      props.onPublished();
    } catch (error) {
      setProblem({ during: "Publish refused: nothing was installed", error });
    } finally {
      setPublishing(false);
    }
  };

  const paths = upload ? Object.keys(upload.files).sort() : [];
  const checked = report && report.package === selected ? report.report : undefined;
  const canPublish = !!upload && !!checked?.publishable && !checking && !publishing;

  return (
    <>
      <Section title="Upload">
        <p class="muted">
          Choose the directory that holds <code>packages/</code>, <code>collections/</code>,{" "}
          <code>conf/models.yaml</code> and the rest. Every file in it is sent (hidden ones are skipped), as{" "}
          <code>engram catalog publish</code> sends them; nothing is installed until you publish.
        </p>
        <div class="field cat-file-field">
          <label for="catalog-directory">Catalog directory</label>
          <input
            id="catalog-directory"
            ref={input}
            type="file"
            multiple
            onChange={(event) => choose(event.currentTarget.files)}
          />
        </div>
        <Loading when={reading} />
        {upload ? (
          <>
            <p data-testid="upload-summary">
              Read {paths.length} file{paths.length === 1 ? "" : "s"} from{" "}
              <code>{upload.root || "the directory"}</code>
              {upload.skipped.length > 0 ? `; skipped ${upload.skipped.length} hidden` : ""}.
            </p>
            <details class="more">
              <summary>Files to send ({paths.length})</summary>
              <ul class="plain-list cat-files">
                {paths.map((path) => (
                  <li key={path}>
                    <code>{path}</code> <span class="muted">{upload.files[path]?.length ?? 0} chars</span>
                  </li>
                ))}
              </ul>
            </details>
            {upload.packages.length === 0 ? (
              <p class="error" role="alert">
                No package manifest under <code>packages/</code>
                {upload.unreadable.length > 0 ? ` could be read (${upload.unreadable.join(", ")})` : ""}: a
                catalog directory needs one.
              </p>
            ) : (
              <div class="field-row cat-publish-row">
                <div class="field">
                  <label for="catalog-package">Package to publish</label>
                  <select
                    id="catalog-package"
                    value={selected}
                    onChange={(event) => {
                      setSelected(event.currentTarget.value);
                      dryRun(upload.files, event.currentTarget.value);
                    }}
                  >
                    {upload.packages.map((pkg) => (
                      <option key={pkg} value={pkg}>
                        {pkg}
                      </option>
                    ))}
                  </select>
                </div>
                <div class="field cat-buttons">
                  <div class="actions">
                    <button
                      type="button"
                      {...writeControl(readOnly, checking || !selected)}
                      onClick={() => dryRun(upload.files, selected)}
                    >
                      Check again (dry run)
                    </button>
                    <button
                      type="button"
                      class="primary"
                      {...writeControl(readOnly, !canPublish)}
                      onClick={() => setConfirming(true)}
                    >
                      Publish {selected}
                    </button>
                  </div>
                </div>
              </div>
            )}
          </>
        ) : null}
      </Section>
      {checking ? <Loading when /> : null}
      {problem ? (
        <Section title={problem.during}>
          <PublishProblem error={problem.error} />
        </Section>
      ) : null}
      {checked ? (
        <Section title={`Dry run of ${report?.package}`}>
          <p class="muted">
            Compared with the stored records of this workspace
            {props.active ? ` (active package ${props.active})` : " (no catalog is published yet)"}. Nothing
            was installed.
          </p>
          <CompatibilityView report={checked} label="Dry-run report" />
          {checked.diff ? <DefinitionsDiffView diff={checked.diff} /> : null}
        </Section>
      ) : null}
      {publishing ? <Loading when /> : null}
      {result ? <Published result={result} /> : null}
      <Confirm
        open={confirming}
        title={`Publish ${selected}?`}
        confirmLabel={`Publish ${selected}`}
        onConfirm={publish}
        onCancel={() => setConfirming(false)}
      >
        <p>
          {props.active ? (
            <>
              This replaces the active catalog <strong>{props.active}</strong> of workspace{" "}
              <strong>{props.workspace ?? "this workspace"}</strong> with <strong>{selected}</strong> from the{" "}
              {paths.length} uploaded files, atomically.
            </>
          ) : (
            <>
              This installs <strong>{selected}</strong> from the {paths.length} uploaded files as the catalog
              of workspace <strong>{props.workspace ?? "this workspace"}</strong>.
            </>
          )}
        </p>
        {checked ? (
          <p>
            Dry-run verdict: <strong>{checked.verdict}</strong>: {verdictText(checked.verdict)}
            {checked.verdict === "additive"
              ? ` ${moving(checked)} stored record(s) move forward to the changed contracts.`
              : ""}
          </p>
        ) : null}
      </Confirm>
    </>
  );
}

/** Stored records an additive publish moves forward to their collection's new contract. */
function moving(report: CompatibilityReport): number {
  return (report.changes ?? []).filter((c) => c.verdict === "additive").reduce((n, c) => n + c.count, 0);
}

function Published(props: { result: PublishResult }) {
  const { result } = props;
  const files = Object.entries(result.files).sort(([a], [b]) => a.localeCompare(b));
  return (
    <Section title="Published">
      <p class="ok-note" role="status">
        {result.package} is the active catalog of workspace {result.workspace}.
      </p>
      <dl class="facts">
        <dt>Package</dt>
        <dd data-testid="published-package">{result.package}</dd>
        <dt>Catalog hash</dt>
        <dd>
          <code class="hash">{result.catalog_hash}</code>
        </dd>
        <dt>Records moved forward</dt>
        <dd>{result.rewritten_records}</dd>
      </dl>
      <CatalogWarnings warnings={result.warnings} />
      <details class="more">
        <summary>Normalized file hashes ({files.length})</summary>
        <DataTable label="File hashes" columns={["File", "Hash of its normalized content"]} bare>
          {files.map(([path, hash]) => (
            <tr key={path}>
              <td>
                <code>{path}</code>
              </td>
              <td>
                <code class="hash">{hash}</code>
              </td>
            </tr>
          ))}
        </DataTable>
      </details>
    </Section>
  );
}
