// databaseAnswers(): whether the database answers a trivial statement in time (GET /health, and
// a worker's metrics listener, ask it).
import { PING } from "./sql.js";
import type { Db } from "./types.js";

// A health probe must answer quickly even when the database hangs.
const HEALTH_DB_TIMEOUT_MS = 2_000;
// On PGlite a probe would wait behind every statement already queued (a hybrid search queues
// three); a statement completed this recently shows the database answers. A wedged database
// completes none, so the probe runs and times out.
const RECENT_ANSWER_MS = 1_000;

export async function databaseAnswers(db: Db): Promise<boolean> {
  if (db.answeredWithin(RECENT_ANSWER_MS)) return true;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), HEALTH_DB_TIMEOUT_MS);
  });
  const probe = db.query(PING).then(
    () => true,
    () => false,
  );
  try {
    return await Promise.race([probe, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
