// The import graph of src/ and the rules it keeps (docs/development.md, "Where a rule lives"): no
// cycle, type-only imports included; a folder with an index.ts is entered only through it; the two
// shells (http/, mcp/) stand side by side over src/contract, meeting at one mounting point; nothing
// below the shells imports them; the server never imports a client's source.
// `node --import tsx scripts/module-graph.ts` prints what breaks a rule (exit 1) or nothing (exit 0);
// test/unit/module-graph.test.ts runs the same check in the suite.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

export interface ModuleGraph {
  /** Repository-relative path (forward slashes) → the repository-relative files it imports. */
  imports: Map<string, string[]>;
}

export interface GraphViolation {
  rule: string;
  detail: string;
}

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

const posix = (path: string) => path.split(sep).join("/");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith(".ts") || name.endsWith(".tsx") ? [path] : [];
  });
}

/** Where a relative specifier lands (".js" written for ".ts", as NodeNext resolution wants). */
function resolveSpecifier(from: string, specifier: string, exists: (path: string) => boolean): string | null {
  // The clients are packages of this repository: by name they are still the client's source.
  if (specifier.startsWith("@engram/")) return `clients/${specifier}`;
  if (!specifier.startsWith(".")) return null;
  const base = posix(join(dirname(from), specifier));
  const candidates = [base.replace(/\.js$/, ".ts"), base.replace(/\.js$/, ".tsx"), base, `${base}/index.ts`];
  return candidates.find(exists) ?? base;
}

/**
 * The graph of src/ as it is on disk, with `overlay` (path → text) replacing or adding files: what a
 * probe adds without writing to the tree.
 */
export function readModuleGraph(overlay: Record<string, string> = {}): ModuleGraph {
  const texts = new Map<string, string>();
  for (const file of sourceFiles(join(ROOT, "src"))) {
    texts.set(posix(relative(ROOT, file)), readFileSync(file, "utf8"));
  }
  for (const [path, text] of Object.entries(overlay)) texts.set(path, text);
  const exists = (path: string) => texts.has(path) || isFile(join(ROOT, path));
  const imports = new Map<string, string[]>();
  for (const [path, text] of texts) {
    // Syntactic: every import and export-from, `import type` and dynamic import() included.
    const { importedFiles } = ts.preProcessFile(text, true, true);
    const targets = importedFiles
      .map((ref) => resolveSpecifier(path, ref.fileName, exists))
      .filter((target): target is string => target !== null);
    imports.set(path, [...new Set(targets)]);
  }
  return { imports };
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Strongly connected components of more than one file, or a file importing itself (Tarjan). */
export function importCycles(graph: ModuleGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  let next = 0;
  const visit = (file: string) => {
    index.set(file, next);
    low.set(file, next);
    next++;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.imports.get(file) ?? []) {
      if (!graph.imports.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file) as number, low.get(target) as number));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file) as number, index.get(target) as number));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || graph.imports.get(file)?.includes(file)) cycles.push(component.sort());
  };
  for (const file of [...graph.imports.keys()].sort()) if (!index.has(file)) visit(file);
  return cycles;
}

/** The folders under src/ that hold an index.ts: their entry points. */
function entryFolders(graph: ModuleGraph): string[] {
  return [...graph.imports.keys()]
    .filter((path) => path.endsWith("/index.ts") && path !== "src/index.ts")
    .map((path) => path.slice(0, -"/index.ts".length));
}

const inside = (path: string, folder: string) => path.startsWith(`${folder}/`);

// The composition and shell layers; nothing below them may import them.
const UPPER = ["src/http", "src/mcp", "src/cli", "src/main.ts", "src/deps.ts"];
const SHELLS_AND_CONTRACT = ["src/contract", ...UPPER];
const isUpper = (path: string, layers: string[]) =>
  layers.some((layer) => path === layer || inside(path, layer));
/** The one file of src/http that may import src/mcp: where the MCP endpoint is mounted. */
export const MCP_MOUNT = "src/http/routes/mcp.ts";

/** Every import in src/ that breaks one of the rules in this file's opening comment. */
export function graphViolations(graph: ModuleGraph): GraphViolation[] {
  const violations: GraphViolation[] = importCycles(graph).map((cycle) => ({
    rule: "no import cycle",
    detail: cycle.join(" → "),
  }));
  const folders = entryFolders(graph);
  for (const [from, targets] of graph.imports) {
    for (const to of targets) {
      const edge = `${from} imports ${to}`;
      if (!to.startsWith("src/")) {
        violations.push({ rule: "src/ imports only src/ and packages", detail: edge });
        continue;
      }
      for (const folder of folders) {
        if (inside(to, folder) && !inside(from, folder) && to !== `${folder}/index.ts`) {
          violations.push({ rule: `enter ${folder}/ through its index.ts`, detail: edge });
        }
      }
      if (inside(from, "src/mcp") && inside(to, "src/http")) {
        violations.push({ rule: "src/mcp does not import src/http", detail: edge });
      }
      if (inside(from, "src/http") && inside(to, "src/mcp") && from !== MCP_MOUNT) {
        violations.push({ rule: `src/http imports src/mcp only in ${MCP_MOUNT}`, detail: edge });
      }
      if (inside(from, "src/contract") && isUpper(to, UPPER)) {
        violations.push({ rule: "src/contract imports neither shell", detail: edge });
      }
      if (!isUpper(from, SHELLS_AND_CONTRACT) && isUpper(to, SHELLS_AND_CONTRACT)) {
        violations.push({
          rule: "domain modules do not import the contract, shells or entry points",
          detail: edge,
        });
      }
      if (inside(from, "src/platform") && !inside(to, "src/platform")) {
        violations.push({ rule: "src/platform imports only src/platform", detail: edge });
      }
    }
  }
  return violations;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const violations = graphViolations(readModuleGraph());
  for (const { rule, detail } of violations) process.stdout.write(`${rule}: ${detail}\n`);
  process.exit(violations.length === 0 ? 0 : 1);
}
