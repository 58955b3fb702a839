// Letting the event loop turn. Embedded storage (PGlite) runs SQL on this thread and its awaits
// resolve as microtasks, so code that runs statement after statement (a drain, an index build, the
// worker's jobs one after another) holds off timers, HTTP requests and lease heartbeats until it
// stops, unless it yields a macrotask turn between steps.

/** Resolves after pending I/O and timers have had their turn (setImmediate). */
export function yieldTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
