import { Command } from "commander";
import { openMigratedDatabase } from "../database.js";
import type { Db } from "../platform/db/index.js";
import { createWorkspace, listWorkspaces } from "../workspaces/index.js";
import { commandContext } from "./run.js";

/** Opens (and migrates) the configured database for one operator command, then closes it. */
export async function withDatabase<T>(work: (db: Db) => Promise<T>): Promise<T> {
  const { config, log } = commandContext();
  const db = await openMigratedDatabase(config, log);
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}

export function workspaceCommand(): Command {
  const command = new Command("workspace").description("create and list workspaces");
  command
    .command("create")
    .description("create a workspace and print its key once")
    .argument("<name>", "workspace name")
    .option("--json", "print one JSON object {workspace, id, api_key}")
    .action(async (name: string, options: { json?: boolean }) => {
      const created = await withDatabase((db) => createWorkspace(db, name));
      if (options.json) {
        const { workspace, id, api_key } = created;
        process.stdout.write(`${JSON.stringify({ workspace, id, api_key })}\n`);
        return;
      }
      process.stdout.write(
        `Created workspace ${created.workspace} (${created.id}).\n` +
          `Its key is shown only this once; keep it safe:\n\n  ${created.api_key}\n`,
      );
    });
  command
    .command("list")
    .description("list workspaces (never keys)")
    .option("--json", "print a JSON array")
    .action(async (options: { json?: boolean }) => {
      const workspaces = await withDatabase(listWorkspaces);
      const rows = workspaces.map((w) => ({
        workspace: w.name,
        id: w.id,
        created_at: w.created_at.toISOString(),
      }));
      if (options.json) {
        process.stdout.write(`${JSON.stringify(rows)}\n`);
        return;
      }
      if (rows.length === 0) process.stdout.write("no workspaces\n");
      for (const row of rows) process.stdout.write(`${row.workspace}\t${row.id}\t${row.created_at}\n`);
    });
  return command;
}
