// A LangGraph namespace is one Engram entity: `<collection>:` followed by each label and a "/"
// (["users", "alice"] in langgraph_items is "langgraph_items:users/alice/"). Within a label, "%"
// and "/" are escaped as %25 and %2F, so the encoding is reversible for any label, and a
// namespace's entity starts with its prefix's entity exactly when the namespace is under the
// prefix: GET /entities?prefix= lists a subtree and nothing beside it. The collection name in
// front keeps two stores on one workspace (other collections) from listing each other's namespaces.

/** Engram's bounds on a row's entity and key (ROW_LIMITS of the server, in characters). */
export const ENTITY_MAX_CHARS = 256;
export const KEY_MAX_CHARS = 256;

const SEPARATOR = "/";

function chars(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

function encodeLabel(label: string): string {
  return label.replace(/%/g, "%25").replace(/\//g, "%2F");
}

function decodeLabel(encoded: string): string | undefined {
  // Only the two escapes encodeLabel writes; any other "%" means the entity is not ours.
  if (/%(?!25|2F)/.test(encoded)) return undefined;
  return encoded.replace(/%(25|2F)/g, (_, code: string) => (code === "25" ? "%" : SEPARATOR));
}

function checkLabels(labels: readonly string[]): void {
  for (const label of labels) {
    if (typeof label !== "string" || label === "") {
      throw new TypeError(`Namespace labels must be non-empty strings, got ${JSON.stringify(labels)}`);
    }
  }
}

/**
 * The entity text that every namespace under `labels` starts with (the store's whole collection
 * for []). For a complete namespace, this is its entity.
 */
export function entityPrefix(collection: string, labels: readonly string[]): string {
  checkLabels(labels);
  return `${collection}:${labels.map((label) => encodeLabel(label) + SEPARATOR).join("")}`;
}

/** The entity of a namespace, refused when Engram could not store it. */
export function entityOf(collection: string, namespace: readonly string[]): string {
  if (namespace.length === 0) throw new TypeError("A namespace needs at least one label");
  const entity = entityPrefix(collection, namespace);
  if (chars(entity) > ENTITY_MAX_CHARS) {
    throw new RangeError(
      `Namespace ${JSON.stringify(namespace)} is too long for Engram: its entity "${entity}" has more than ${ENTITY_MAX_CHARS} characters`,
    );
  }
  return entity;
}

/** The namespace an entity of the collection stands for; undefined for an entity that is not one. */
export function namespaceOf(collection: string, entity: string): string[] | undefined {
  const head = `${collection}:`;
  if (!entity.startsWith(head) || !entity.endsWith(SEPARATOR)) return undefined;
  const parts = entity.slice(head.length, -SEPARATOR.length).split(SEPARATOR);
  const labels = parts.map(decodeLabel);
  if (labels.some((label) => label === undefined || label === "")) return undefined;
  return labels as string[];
}

/** A key Engram accepts: 1 to 256 characters, not only white space. */
export function checkKey(key: string): void {
  if (typeof key !== "string" || !/\S/.test(key) || chars(key) > KEY_MAX_CHARS) {
    throw new RangeError(
      `Engram keys are 1 to ${KEY_MAX_CHARS} characters and not only white space, got ${JSON.stringify(key)}`,
    );
  }
}
