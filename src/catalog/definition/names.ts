// Identity formats shared by every definition family.

/** Definition names: lowercase identifiers. A leading underscore is reserved (_system). */
export const NAME = /^[a-z][a-z0-9_]*$/;
export const NAME_HINT = "a lowercase name (a-z, 0-9, _; starting with a letter)";

/** Exact versioned references: name@positive-integer. */
export const VERSIONED_REF = /^([a-z][a-z0-9_]*)@([1-9][0-9]*)$/;
export const VERSIONED_REF_HINT = "an exact name@version reference (for example customer_events@1)";

export function splitRef(reference: string): { name: string; version: number } {
  const match = VERSIONED_REF.exec(reference);
  if (!match) throw new Error(`not a versioned reference: ${reference}`);
  return { name: match[1] as string, version: Number(match[2]) };
}
