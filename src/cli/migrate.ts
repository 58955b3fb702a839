// engram migrate: the schema brought up to date, and with --vector-layout the one step that
// converts stored embeddings between the pgvector and exact layouts (docs/operations.md).
import { Command, InvalidArgumentError, Option } from "commander";
import { openMigratedDatabase } from "../database.js";
import type { VectorLayout } from "../platform/db/index.js";
import { CliError, commandContext } from "./run.js";

const LAYOUTS: readonly VectorLayout[] = ["auto", "exact"];

function parseLayout(value: string): VectorLayout {
  if (!(LAYOUTS as readonly string[]).includes(value))
    throw new InvalidArgumentError("expected auto or exact");
  return value as VectorLayout;
}

export function migrateCommand(): Command {
  return new Command("migrate")
    .description("apply database migrations and exit")
    .addOption(
      new Option(
        "--vector-layout <layout>",
        "convert stored embeddings to this layout (auto: pgvector where the server has it; exact: real[])",
      ).argParser(parseLayout),
    )
    .action(async (options: { vectorLayout?: VectorLayout }) => {
      const { config, log } = commandContext();
      const layout = options.vectorLayout;
      if (layout === "exact" && !config.databaseUrl) {
        throw new CliError(
          "--vector-layout exact applies to a PostgreSQL server (DATABASE_URL); embedded storage always uses pglite/hnsw",
        );
      }
      const db = await openMigratedDatabase(layout ? { ...config, vectorLayout: layout } : config, log, {
        convertLayout: layout !== undefined,
      });
      await db.close();
      process.stderr.write("engram: database schema is up to date\n");
    });
}
