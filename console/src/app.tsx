import { useEffect, useState } from "preact/hooks";
import { api, onSignedOut, signOut } from "./api";
import { ErrorNote } from "./components/common";
import { Link } from "./components/link";
import { CatalogPage } from "./pages/catalog";
import { EntitiesPage } from "./pages/entities";
import { EntityPage } from "./pages/entity";
import { ErasePage } from "./pages/erase";
import { KeysPage } from "./pages/keys";
import { MemoriesPage } from "./pages/memories";
import { OverviewPage } from "./pages/overview";
import { RecordPage } from "./pages/record";
import { SearchPage } from "./pages/search";
import { ViewsPage } from "./pages/views";
import { RunPage, WorkerPage } from "./pages/worker";
import { READ_ONLY_REASON, ReadOnlyContext } from "./read-only";
import { href, type Route, useRoute } from "./router";
import { storedKey, storeKey } from "./session";
import type { WorkspaceInfo } from "./types";

const PAGES: { path: string; title: string; render: (route: Route) => preact.JSX.Element; nav?: string }[] = [
  { path: "/", title: "Overview", nav: "Overview", render: () => <OverviewPage /> },
  { path: "/entities", title: "Entities", nav: "Entities", render: (r) => <EntitiesPage route={r} /> },
  { path: "/memories", title: "Memories", nav: "Memories", render: (r) => <MemoriesPage route={r} /> },
  { path: "/entity", title: "Entity", render: (r) => <EntityPage route={r} /> },
  { path: "/record", title: "Record", render: (r) => <RecordPage route={r} /> },
  { path: "/search", title: "Search", nav: "Search", render: (r) => <SearchPage route={r} /> },
  { path: "/views", title: "Views", nav: "Views", render: (r) => <ViewsPage route={r} /> },
  { path: "/worker", title: "Worker", nav: "Worker", render: (r) => <WorkerPage route={r} /> },
  { path: "/run", title: "Derivation run", render: (r) => <RunPage route={r} /> },
  { path: "/catalog", title: "Catalog", nav: "Catalog", render: (r) => <CatalogPage route={r} /> },
  { path: "/erase", title: "Erase", nav: "Erase", render: (r) => <ErasePage route={r} /> },
  { path: "/keys", title: "Keys", nav: "Keys", render: () => <KeysPage /> },
];

export function App() {
  const [key, setKey] = useState(storedKey);
  useEffect(() => onSignedOut(() => setKey(null)), []);
  if (!key) return <SignIn onSignedIn={setKey} />;
  return <Shell />;
}

function Shell() {
  const route = useRoute();
  const [workspace, setWorkspace] = useState<WorkspaceInfo>();
  useEffect(() => {
    api<WorkspaceInfo>("GET", "/workspace").then(setWorkspace, () => undefined);
  }, []);
  const page = PAGES.find((p) => p.path === route.path);
  // The phone-width menu (styles.css) closes whenever the page changes.
  const [menu, setMenu] = useState(false);
  useEffect(() => setMenu(false), [route.path, route.query.toString()]);
  useEffect(() => {
    document.title = `${page?.title ?? "Not found"} · ${workspace?.name ?? "Engram"} · Engram console`;
  }, [page, workspace]);
  return (
    <div class="shell">
      <header class="top">
        <a class="skip" href="#main">
          Skip to content
        </a>
        <span class="brand">Engram</span>
        <span class="workspace" title="Workspace">
          {workspace?.name ?? ""}
        </span>
        {workspace?.key.scope === "read_only" ? (
          <span class="read-only" title={READ_ONLY_REASON}>
            read-only
          </span>
        ) : null}
        <button
          type="button"
          class="menu-toggle"
          aria-expanded={menu}
          aria-controls="console-nav"
          onClick={() => setMenu(!menu)}
        >
          Menu
        </button>
        <nav aria-label="Console" id="console-nav" class={menu ? "open" : undefined}>
          {PAGES.filter((p) => p.nav).map((p) => (
            <Link key={p.path} href={href(p.path)} current={p.path === route.path}>
              {p.nav}
            </Link>
          ))}
        </nav>
        <button type="button" class="sign-out" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        {/* Until GET /workspace says the key's scope, no control that writes is active. */}
        <ReadOnlyContext.Provider value={!workspace || workspace.key.scope === "read_only"}>
          {page ? (
            page.render(route)
          ) : (
            <p class="error" role="alert">
              No console page at {route.path}. <Link href={href("/")}>Overview</Link>
            </p>
          )}
        </ReadOnlyContext.Provider>
      </main>
    </div>
  );
}

function SignIn(props: { onSignedIn: (key: string) => void }) {
  const [key, setKey] = useState("");
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      // The key is kept only once the API accepts it.
      await api("GET", "/workspace", { key: key.trim() });
      storeKey(key.trim());
      props.onSignedIn(key.trim());
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="sign-in">
      <h1>Engram console</h1>
      <form onSubmit={submit}>
        <label for="key">Workspace key</label>
        <input
          id="key"
          type="password"
          autoComplete="off"
          spellcheck={false}
          required
          value={key}
          onInput={(event) => setKey(event.currentTarget.value)}
          placeholder="egk_…"
        />
        <button type="submit" disabled={busy || key.trim() === ""}>
          Sign in
        </button>
        <ErrorNote error={error} />
        <p class="muted">The key stays in this tab only and is sent only in the Authorization header.</p>
      </form>
    </main>
  );
}
