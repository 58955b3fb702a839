import { loadCatalog } from "../../src/catalog/index.js";
import { MINIMAL_PACKAGE } from "./catalog-files.js";

export interface Refusal {
  code: string;
  status: number;
  file: string;
  path: string;
  detail: string;
}

/** Loads a catalog expecting a refusal; returns its code, file and path (fails when it loads). */
export function refusal(files: Record<string, string>, pkg = MINIMAL_PACKAGE): Refusal {
  try {
    loadCatalog(files, pkg);
  } catch (error: any) {
    if (!error.extra) throw error;
    return {
      code: error.code,
      status: error.status,
      file: error.extra.file,
      path: error.extra.path,
      detail: error.detail,
    };
  }
  throw new Error("the catalog loaded");
}
