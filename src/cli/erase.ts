import { Command } from "commander";
import { eraseDryRun, eraseRequest } from "../erasure/index.js";
import { isUuid } from "../platform/input.js";
import { getRecord } from "../records/index.js";
import { requireWorkspaceByName } from "../workspaces/index.js";
import { CliError, commandContext } from "./run.js";
import { withDatabase } from "./workspace.js";

/**
 * `engram erase`: the operator's erasure, through the same path as POST /erase, against the
 * database directly (with the embedded data directory, while the server is stopped). Prints
 * the result and the content-free audit record; with --dry-run, what it would remove, writing
 * nothing (POST /erase's dry_run).
 */
export function eraseCommand(): Command {
  return new Command("erase")
    .description("erase an entity or explicit records, and everything derived from them (irreversible)")
    .requiredOption("--workspace <name>", "the workspace to erase in")
    .option("--entity <entity>", "erase every record of this entity")
    .option("--records <ids>", "erase these record ids (comma separated)")
    .option("--dry-run", "print what would be erased (counts and ids); erase nothing")
    .action(async (options: { workspace: string; entity?: string; records?: string; dryRun?: boolean }) => {
      if ((options.entity === undefined) === (options.records === undefined)) {
        throw new CliError("name exactly one of --entity or --records");
      }
      const records = options.records
        ?.split(",")
        .map((id) => id.trim())
        .filter(Boolean);
      if (records && (records.length === 0 || !records.every(isUuid))) {
        throw new CliError("--records takes a comma separated list of record UUIDs");
      }
      const { config } = commandContext();
      const printed = await withDatabase(async (db) => {
        const workspace = await requireWorkspaceByName(db, options.workspace);
        const request = { entity: options.entity, records };
        const limits = { maxRecords: config.eraseMaxRecords };
        if (options.dryRun) return eraseDryRun(db, workspace.id, request, limits);
        const result = await eraseRequest(db, workspace.id, request, limits);
        return { ...result, audit: await getRecord(db, workspace.id, result.audit_id) };
      });
      process.stdout.write(`${JSON.stringify(printed, null, 2)}\n`);
    });
}
