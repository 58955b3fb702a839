import type { Db } from "../../src/platform/db/index.js";

/** The database with the text of every statement it is sent, through either entry point, pushed to `seen`. */
export function recordingDb(db: Db, seen: string[]): Db {
  return new Proxy(db, {
    get(target, property) {
      if (property === "query" || property === "queryRepeated") {
        return (sql: string, params?: unknown[]) => {
          seen.push(sql);
          return property === "query" ? target.query(sql, params) : target.queryRepeated(sql, params ?? []);
        };
      }
      const value = Reflect.get(target, property);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
