// The SQL coding rules that keep Engram routable on Citus (docs/scaling.md, "Statements that route"),
// checked on the source: the server suite on single-node Citus (.ci/run) catches what a test
// sends, this catches a statement no test sends yet.
import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { CITUS_PLACEMENT } from "../../src/platform/db/citus.js";

const ROOT = join(import.meta.dirname, "../..");

async function sources(dir = join(ROOT, "src")): Promise<{ file: string; text: string }[]> {
  const out: { file: string; text: string }[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await sources(path)));
    else if (entry.name.endsWith(".ts")) {
      out.push({ file: relative(ROOT, path), text: withoutComments(await readFile(path, "utf8")) });
    }
  }
  return out;
}

/** The source without its comments (which quote SQL, backticks included). */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
}

/** The template literals of a source, each whole (substitutions kept as written). */
function templateLiterals(text: string): string[] {
  const literals: string[] = [];
  // Open literals, innermost last: where each began, and the braces open in its substitution.
  const open: { start: number; braces: number }[] = [];
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    const top = open.at(-1);
    if (ch === "\\") i++;
    else if (ch === "`") {
      if (top && top.braces === 0) {
        literals.push(text.slice(top.start, i + 1));
        open.pop();
      } else open.push({ start: i, braces: 0 });
    } else if (top && ch === "$" && text[i + 1] === "{" && top.braces === 0) {
      top.braces = 1;
      i++;
    } else if (top && top.braces > 0 && ch === "{") top.braces++;
    else if (top && top.braces > 0 && ch === "}") top.braces--;
  }
  return literals;
}

/** Each match of pattern in the sources, as "file: matched text", but in the allowed files. */
async function offences(pattern: RegExp, allowed: string[] = [], check = (_match: RegExpExecArray) => true) {
  const found: string[] = [];
  for (const { file, text } of await sources()) {
    if (allowed.includes(file)) continue;
    for (const match of text.matchAll(pattern)) {
      if (check(match)) found.push(`${file}: ${match[0].replace(/\s+/g, " ").slice(0, 160)}`);
    }
  }
  return found;
}

// Functions Citus refuses where a shard would evaluate them per row (STABLE or VOLATILE).
const NOT_IMMUTABLE =
  /\bnow\(\)|\binterval\b|::regconfig|\bcurrent_(timestamp|date)\b|\bclock_timestamp\b|\brandom\(\)/i;

const placed = (where: string) =>
  Object.entries(CITUS_PLACEMENT)
    .filter(([, placement]) => placement === where)
    .map(([table]) => table);

describe("SQL that Citus can route", () => {
  it("names the workspace outright on every per-workspace table, never through another alias", async () => {
    // The queue is a coordinator table (no routing); deferred vectors are off on Citus.
    const allowed = ["src/worker/sql.ts", "src/records/vector-sql.ts"];
    expect(await offences(/\b\w+\.workspace_id\s*=\s*\w+\.workspace_id\b/g, allowed)).toEqual([]);
  });

  it("writes no simple CASE (Citus 13 sends `CASE x WHEN v` to shards as `WHEN NULL::boolean`)", async () => {
    expect(await offences(/\bCASE\s+(?!WHEN\b|\$\{)[^\s]+\s+WHEN\b/g)).toEqual([]);
  });

  it("calls nothing but IMMUTABLE functions in ON CONFLICT … DO UPDATE", async () => {
    // The queue's upsert is on the coordinator's own table.
    expect(
      await offences(/ON CONFLICT[^`;]*?DO UPDATE[^`;]*/g, ["src/worker/sql.ts"], (match) =>
        NOT_IMMUTABLE.test(match[0]),
      ),
    ).toEqual([]);
  });

  it("calls nothing but IMMUTABLE functions in a RETURNING clause", async () => {
    expect(
      // To the clause's end: the literal's, or the CTE's that holds it.
      await offences(
        /\bRETURNING\b[^`;)]*/g,
        ["src/worker/sql.ts"],
        (match) => NOT_IMMUTABLE.test(match[0]) || /::text/.test(match[0]),
      ),
    ).toEqual([]);
  });

  it("computes no text search vector in an UPDATE's SET list (a STABLE cast on a column)", async () => {
    expect(
      await offences(/\bUPDATE\s+\w+\s+SET\b[^`;]*?(\bFROM\b|\bWHERE\b)/g, [], (match) =>
        /to_tsvector|::regconfig/.test(match[0]),
      ),
    ).toEqual([]);
  });

  it("joins the coordinator's job queue with no distributed table in one statement", async () => {
    const jobs = /\b(FROM|JOIN|UPDATE|INTO)\s+jobs\b/;
    const distributed = new RegExp(`\\b(FROM|JOIN|UPDATE|INTO)\\s+(${placed("distributed").join("|")})\\b`);
    const found: string[] = [];
    for (const { file, text } of await sources()) {
      for (const literal of templateLiterals(text)) {
        if (jobs.test(literal) && distributed.test(literal)) found.push(`${file}: ${literal.slice(0, 160)}`);
      }
    }
    expect(found).toEqual([]);
  });
});
