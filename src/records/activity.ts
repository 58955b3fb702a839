// GET /workspace/activity (docs/api.md "GET /workspace/activity"): records written per UTC day over
// the last `days` days, and how many of them derivations wrote, for the console's overview chart.
// Every day of the window is listed, with 0 where nothing was written; _system audits not counted.
import type { Queryable } from "../platform/db/index.js";
import * as sql from "./sql.js";
import { SYSTEM_COLLECTION } from "./validate.js";

export interface ActivityDay {
  /** The UTC day, YYYY-MM-DD. */
  day: string;
  records: number;
  /** Of records, those a derivation wrote (depth > 0: they derive from other records). */
  derived: number;
}

export async function dailyActivity(
  db: Queryable,
  workspaceId: string,
  days: number,
): Promise<{ days: ActivityDay[] }> {
  const { rows } = await db.query<ActivityDay>(sql.DAILY_ACTIVITY, [workspaceId, days, SYSTEM_COLLECTION]);
  return { days: rows };
}
