// Process metrics (CPU, memory, event loop, garbage collection, handles): one set per process,
// shared by every app's registry. collectDefaultMetrics starts observers that are never stopped
// (a GC observer, an event loop delay monitor), so it runs once however many apps a process builds.
import { collectDefaultMetrics, Registry } from "prom-client";

let registry: Registry | undefined;

export function processMetrics(): Registry {
  if (!registry) {
    registry = new Registry();
    collectDefaultMetrics({ register: registry });
  }
  return registry;
}
