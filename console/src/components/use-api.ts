import { useCallback, useEffect, useState } from "preact/hooks";
import { ApiError } from "../api";

export interface Loaded<T> {
  data: T | undefined;
  error: ApiError | Error | undefined;
  loading: boolean;
  reload: () => void;
}

/**
 * Runs `load` whenever `deps` change (aborting the previous call) and keeps its answer; a page
 * shows `error.detail` when it fails.
 */
export function useApi<T>(load: (signal: AbortSignal) => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: Error; loading: boolean }>({ loading: true });
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    const controller = new AbortController();
    setState((previous) => ({ data: previous.data, loading: true }));
    load(controller.signal).then(
      (data) => controller.signal.aborted || setState({ data, loading: false }),
      (error: Error) => controller.signal.aborted || setState({ error, loading: false }),
    );
    return () => controller.abort();
  }, [...deps, generation]);
  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

/** How often the worker page's lists reload while the page is shown. */
export const LIVE_RELOAD_MS = 5000;

/**
 * Calls `reload` every `ms` while the page is visible, and at once when it is shown again; a hidden
 * tab sends nothing.
 */
export function useLiveReload(reload: () => void, ms = LIVE_RELOAD_MS): void {
  useEffect(() => {
    const visible = () => document.visibilityState === "visible";
    const timer = setInterval(() => visible() && reload(), ms);
    const onShown = () => visible() && reload();
    document.addEventListener("visibilitychange", onShown);
    return () => {
      clearInterval(timer);
      document.removeEventListener("visibilitychange", onShown);
    };
  }, [reload, ms]);
}

export function errorText(error: unknown): string {
  if (error instanceof ApiError) return error.detail;
  return error instanceof Error ? error.message : String(error);
}
