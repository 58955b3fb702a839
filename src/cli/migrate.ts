import { Command } from "commander";
import { openMigratedDatabase } from "../database.js";
import { commandContext } from "./run.js";

export function migrateCommand(): Command {
  return new Command("migrate").description("apply database migrations and exit").action(async () => {
    const { config, log } = commandContext();
    const db = await openMigratedDatabase(config, log);
    await db.close();
    process.stderr.write("engram: database schema is up to date\n");
  });
}
