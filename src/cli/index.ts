import { Command } from "commander";
import { VERSION } from "../version.js";
import { catalogCommand } from "./catalog.js";
import { eraseCommand } from "./erase.js";
import { exportCommand } from "./export.js";
import { importCommand } from "./import.js";
import { keyCommand } from "./key.js";
import { mcpCommand } from "./mcp.js";
import { migrateCommand } from "./migrate.js";
import { runCommand } from "./run.js";
import { serveCommand } from "./serve.js";
import { workerCommand } from "./worker.js";
import { workspaceCommand } from "./workspace.js";

const program = new Command("engram")
  .description("Engram: memory for AI agents")
  .version(VERSION)
  .showHelpAfterError();

program.addCommand(serveCommand());
program.addCommand(workerCommand());
program.addCommand(migrateCommand());
program.addCommand(workspaceCommand());
program.addCommand(keyCommand());
program.addCommand(catalogCommand());
program.addCommand(mcpCommand());
program.addCommand(eraseCommand());
program.addCommand(exportCommand());
program.addCommand(importCommand());

await runCommand(() => program.parseAsync(process.argv));
