import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";

let t = Date.now();
const pg = await PGlite.create({ extensions: { vector } });
console.log("create ms", Date.now() - t);
t = Date.now();
await pg.exec("CREATE EXTENSION IF NOT EXISTS vector;");
console.log((await pg.query("select version(), pg_advisory_xact_lock(1) ")).rows);
console.log("ext ms", Date.now() - t);
t = Date.now();
const dump = await pg.dumpDataDir("none");
console.log("dump ms", Date.now() - t, dump.size);
t = Date.now();
const pg2 = await PGlite.create({ loadDataDir: dump, extensions: { vector } });
console.log("load ms", Date.now() - t);
console.log((await pg2.query("select extname from pg_extension")).rows);
