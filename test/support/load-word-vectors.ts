// Run as a child process by test/unit/models-local.test.ts: loads the local embedder's word
// vectors from the cache directory given, and prints how much the process grew doing so.
import { createHash } from "node:crypto";
import { wordVectors } from "../../src/models/local/vectors.js";

const before = process.memoryUsage().rss;
const table = await wordVectors(process.argv[2]);
const grownMb = (process.memoryUsage().rss - before) / 2 ** 20;
const digest = createHash("sha256").update(table.vectors).digest("hex");
process.stdout.write(JSON.stringify({ grownMb, found: table.index.size, digest }));
