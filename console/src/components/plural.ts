/** A count with its noun: plural(1, "record") → "1 record", plural(3, "entity", "entities") → "3 entities". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
