import { useEffect, useState } from "preact/hooks";

/** Every console page lives under this path; the server answers the same page for all of them. */
export const BASE = "/console";

export interface Route {
  /** The path below /console, starting with "/" ("/" for the overview). */
  path: string;
  query: URLSearchParams;
}

function current(): Route {
  const path = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : "/";
  return { path: path === "" ? "/" : path, query: new URLSearchParams(location.search) };
}

const listeners = new Set<() => void>();
addEventListener("popstate", () => {
  for (const listener of listeners) listener();
});

/** A console href: href("/entity", {entity: "a b"}) → "/console/entity?entity=a+b". */
export function href(path: string, query: Record<string, string | number | undefined | null> = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== "") params.set(name, String(value));
  }
  const text = params.toString();
  return `${BASE}${path === "/" ? "" : path}${text ? `?${text}` : ""}`;
}

/** The href of this page with some query parameters changed (undefined or "" removes one). */
export function withQuery(route: Route, changes: Record<string, string | number | undefined | null>): string {
  const query: Record<string, string | number | undefined | null> = {};
  route.query.forEach((value, name) => {
    query[name] = value;
  });
  return href(route.path, { ...query, ...changes });
}

/** Moves to a console URL (pushing history unless `replace`), so every page state is a deep link. */
export function navigate(url: string, replace = false): void {
  if (url === location.pathname + location.search) return;
  if (replace) history.replaceState(null, "", url);
  else history.pushState(null, "", url);
  for (const listener of listeners) listener();
  if (!replace) scrollTo(0, 0);
}

export function useRoute(): Route {
  const [route, setRoute] = useState(current);
  useEffect(() => {
    const update = () => setRoute(current());
    listeners.add(update);
    return () => {
      listeners.delete(update);
    };
  }, []);
  return route;
}
