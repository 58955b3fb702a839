import { AppError } from "../../platform/errors.js";

/** The codes of catalog definition errors (all 422; see platform/errors.ts). */
export type DefinitionCode =
  | "yaml_syntax"
  | "definition_unknown_file"
  | "definition_invalid"
  | "definition_duplicate"
  | "definition_unresolved"
  | "package_not_found"
  | "package_not_closed";

export type DefinitionPath = readonly (string | number)[];

/** A refused definition: the response names the code, the file and the dotted path. */
export class DefinitionError extends AppError {
  constructor(
    code: DefinitionCode,
    readonly file: string,
    readonly path: DefinitionPath,
    detail: string,
  ) {
    super(code, `${file}${path.length ? ` at ${path.join(".")}` : ""}: ${detail}`, {
      file,
      path: path.join("."),
    });
  }
}
