// GET /workspace: the key's workspace and what it holds, for the operator console's overview.
import type { Queryable } from "../platform/db/index.js";
import { AppError } from "../platform/errors.js";
import { JOB_STATES, type JobState } from "../worker/index.js";
import * as sql from "./sql.js";

export interface WorkspaceOverview {
  id: string;
  name: string;
  created_at: Date;
  counts: {
    /** Records outside _system. */
    records: number;
    /** Distinct entities of those records. */
    entities: number;
    /** Records still awaiting enrichment (ready false). */
    unready: number;
    /** Every job state, 0 when none. */
    jobs: Record<JobState, number>;
  };
  /** created_at of the oldest unready record, or null when every record is ready. */
  oldest_unready_at: Date | null;
}

interface OverviewRow {
  id: string;
  name: string;
  created_at: Date;
  records: number;
  entities: number;
  unready: number;
  oldest_unready_at: Date | null;
}

export async function workspaceOverview(db: Queryable, workspaceId: string): Promise<WorkspaceOverview> {
  const row = (await db.query<OverviewRow>(sql.WORKSPACE_OVERVIEW, [workspaceId])).rows[0];
  // The key was checked a moment ago: only a workspace deleted in between gets here.
  if (!row) throw new AppError("unauthorized", "the workspace key is not valid");
  const byState =
    (await db.query<{ jobs: Record<string, number> }>(sql.WORKSPACE_JOBS, [workspaceId])).rows[0]?.jobs ?? {};
  const jobs = Object.fromEntries(JOB_STATES.map((state) => [state, byState[state] ?? 0])) as Record<
    JobState,
    number
  >;
  return {
    id: row.id,
    name: row.name,
    created_at: row.created_at,
    counts: { records: row.records, entities: row.entities, unready: row.unready, jobs },
    oldest_unready_at: row.oldest_unready_at,
  };
}
