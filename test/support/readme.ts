// The README's shell commands as requests: each `curl` of its ```sh blocks (continued lines
// joined, quotes honoured) as a method, path, headers and body, so a test can replay them.
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

export interface CurlRequest {
  /** The command as the README writes it (for messages). */
  command: string;
  method: "GET" | "POST";
  /** Path and query, e.g. /search?q=card%20declined&entity=acme. */
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/** Splits a command line into words: '…' and "…" group, a comment (# after a space) ends it. */
function words(line: string): string[] {
  const out: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (c === "'" || c === '"') {
      const end = line.indexOf(c, i + 1);
      word = (word ?? "") + line.slice(i + 1, end);
      i = end;
    } else if (c === " " || c === "\n") {
      if (word !== undefined) out.push(word);
      word = undefined;
    } else if (c === "#" && word === undefined) {
      break;
    } else {
      word = (word ?? "") + c;
    }
  }
  if (word !== undefined) out.push(word);
  return out;
}

/** The curl commands of the README's ```sh blocks, with $NAME replaced from `env`. */
export async function readmeCurls(env: Record<string, string>): Promise<CurlRequest[]> {
  const markdown = await readFile(fileURLToPath(new URL("../../README.md", import.meta.url)), "utf8");
  const blocks = [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1] ?? "");
  const commands: string[] = [];
  for (const block of blocks) {
    let pending = "";
    for (const line of block.split("\n")) {
      pending = pending ? `${pending}\n${line}` : line;
      // A line ending in \ continues; so does an open single quote (a multi-line -d body).
      if (pending.endsWith("\\")) {
        pending = pending.slice(0, -1);
        continue;
      }
      if ((pending.match(/'/g) ?? []).length % 2 === 1) continue;
      if (pending.trim().startsWith("curl ")) commands.push(pending.trim());
      pending = "";
    }
  }
  return commands.map((command) => {
    const args = words(command.replace(/\$([A-Z_]+)/g, (_m, name: string) => env[name] ?? `$${name}`)).slice(
      1,
    );
    const headers: Record<string, string> = {};
    let body: string | undefined;
    let url = "";
    for (let i = 0; i < args.length; i++) {
      const arg = args[i] as string;
      if (arg === "-H") {
        const [name, ...value] = (args[++i] as string).split(":");
        headers[(name as string).toLowerCase()] = value.join(":").trim();
      } else if (arg === "-d") body = args[++i];
      else if (!arg.startsWith("-")) url = arg.replace(/^(https?:\/\/)?(localhost|127\.0\.0\.1):\d+/, "");
    }
    return { command, method: body === undefined ? "GET" : "POST", url, headers, ...(body ? { body } : {}) };
  });
}
