import { Command, Option } from "commander";
import {
  type CreatedKey,
  insertKey,
  type KeyInfo,
  listKeys,
  parseDuration,
  requireWorkspaceByName,
  revokeKey,
} from "../workspaces/index.js";
import { withDatabase } from "./workspace.js";

const iso = (date: Date | null) => date?.toISOString() ?? null;

function keyJson(key: KeyInfo) {
  return {
    id: key.id,
    name: key.name,
    scope: key.scope,
    prefix: key.prefix,
    created_at: iso(key.created_at),
    last_used_at: iso(key.last_used_at),
    expires_at: iso(key.expires_at),
    revoked_at: iso(key.revoked_at),
  };
}

/** One key per line for people: id, name, scope, prefix, state, then its dates ("-" for none). */
function keyLine(key: KeyInfo, now: number): string {
  const state = key.revoked_at
    ? "revoked"
    : key.expires_at && key.expires_at.getTime() <= now
      ? "expired"
      : "active";
  const dates = [key.created_at, key.last_used_at, key.expires_at].map((date) => iso(date) ?? "-");
  return [key.id, key.name, key.scope, key.prefix ?? "-", state, ...dates].join("\t");
}

function printCreated(created: CreatedKey, json: boolean | undefined): void {
  if (json) {
    process.stdout.write(`${JSON.stringify({ ...created, expires_at: iso(created.expires_at) })}\n`);
    return;
  }
  const expiry = created.expires_at ? `, expires ${iso(created.expires_at)}` : "";
  process.stdout.write(
    `Created ${created.scope} key ${created.name} (${created.id}) for workspace ${created.workspace}${expiry}.\n` +
      `The key is shown only this once; keep it safe:\n\n  ${created.api_key}\n`,
  );
}

/**
 * `engram key create|list|revoke` (docs/api.md "Keys: several per workspace, read-only, expiring,
 * revocable").
 */
export function keyCommand(): Command {
  const command = new Command("key").description("create, list and revoke a workspace's keys");
  const workspaceOption = () => new Option("--workspace <name>", "the workspace").makeOptionMandatory();
  command
    .command("create")
    .description("create a key and print it once (rotate: create, switch clients, revoke the old key)")
    .addOption(workspaceOption())
    .option("--name <label>", "a label shown by key list", "default")
    .option("--read-only", "the key can read but every write gets 403 key_read_only")
    .addOption(
      new Option("--admin", "the key also manages the workspace's keys over HTTP (/keys)").conflicts(
        "readOnly",
      ),
    )
    .option("--expires-in <duration>", "the key stops working after this long: 30d, 12h, 90m, 2w")
    .option("--json", "print {workspace, id, name, scope, prefix, api_key, expires_at}")
    .action(
      async (options: {
        workspace: string;
        name: string;
        readOnly?: boolean;
        admin?: boolean;
        expiresIn?: string;
        json?: boolean;
      }) => {
        const expiresInMs = options.expiresIn === undefined ? undefined : parseDuration(options.expiresIn);
        const created = await withDatabase(async (db) =>
          insertKey(db, await requireWorkspaceByName(db, options.workspace), {
            name: options.name,
            scope: options.admin ? "admin" : options.readOnly ? "read_only" : "read_write",
            expiresInMs,
          }),
        );
        printCreated(created, options.json);
      },
    );
  command
    .command("list")
    .description("list a workspace's keys (never the keys themselves)")
    .addOption(workspaceOption())
    .option(
      "--json",
      "print a JSON array of {id, name, scope, prefix, created_at, last_used_at, expires_at, revoked_at}",
    )
    .action(async (options: { workspace: string; json?: boolean }) => {
      const keys = await withDatabase(async (db) =>
        listKeys(db, (await requireWorkspaceByName(db, options.workspace)).id),
      );
      if (options.json) {
        process.stdout.write(`${JSON.stringify(keys.map(keyJson))}\n`);
        return;
      }
      process.stdout.write("id\tname\tscope\tprefix\tstate\tcreated_at\tlast_used_at\texpires_at\n");
      const now = Date.now();
      for (const key of keys) process.stdout.write(`${keyLine(key, now)}\n`);
    });
  command
    .command("revoke")
    .description("revoke a key: its next request gets 401")
    .addOption(workspaceOption())
    .argument("<key>", "the key's id (key list), or the key itself (one that leaked)")
    .action(async (idOrKey: string, options: { workspace: string }) => {
      const revoked = await withDatabase(async (db) =>
        revokeKey(db, await requireWorkspaceByName(db, options.workspace), idOrKey),
      );
      process.stdout.write(`Revoked key ${revoked.name} (${revoked.id}) at ${iso(revoked.revoked_at)}.\n`);
    });
  return command;
}
