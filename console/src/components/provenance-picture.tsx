// The record page's provenance picture: what a record derives from and what derives from it, a
// few levels each way, drawn like a graph view (an arrow from each record to one it derives from).
// Parents come from each record's derived_from (GET /records/{id}), children from
// GET /records/{id}/cited-by; a bounded walk, so a record cited by thousands stays a picture.
import { api } from "../api";
import { href } from "../router";
import type { CitedByPage, FullRecord } from "../types";
import { LoadStatus, Section } from "./common";
import { type GraphLink, GraphPicture } from "./graph-picture";
import { useApi } from "./use-api";

/** Levels walked each way, records per level's fan-out, and records in the picture at most. */
const DEPTH = 2;
const FAN_OUT = 8;
const MAX_NODES = 40;

interface Provenance {
  /** Node label → record id. */
  ids: Map<string, string>;
  links: GraphLink[];
  center: string;
  /** Some parents or children were left out (the bounds above). */
  cut: boolean;
}

type Summary = Pick<FullRecord, "id" | "collection" | "type" | "key" | "derived_from">;

const label = (r: Summary) => `${r.collection}/${r.key ?? r.type} ${r.id.slice(0, 8)}`;

async function walk(record: FullRecord, signal: AbortSignal): Promise<Provenance> {
  const seen = new Map<string, Summary>([[record.id, record]]);
  const edges = new Set<string>();
  let cut = false;
  const get = async (id: string) => {
    const known = seen.get(id);
    if (known && "derived_from" in known) return known;
    const full = await api<FullRecord>("GET", `/records/${encodeURIComponent(id)}`, { signal }).catch(
      () => undefined,
    );
    if (full) seen.set(id, full);
    return full;
  };
  // Up: each level's parents, from their derived_from.
  let level: Summary[] = [record];
  for (let depth = 0; depth < DEPTH && level.length > 0; depth++) {
    const next: Summary[] = [];
    for (const child of level) {
      const parents = child.derived_from.slice(0, FAN_OUT);
      if (child.derived_from.length > FAN_OUT) cut = true;
      for (const id of parents) {
        if (seen.size >= MAX_NODES && !seen.has(id)) {
          cut = true;
          continue;
        }
        const parent = await get(id);
        if (!parent) continue;
        edges.add(`${child.id} ${parent.id}`);
        next.push(parent);
      }
    }
    level = next;
  }
  // Down: each level's children, from cited-by.
  level = [record];
  for (let depth = 0; depth < DEPTH && level.length > 0; depth++) {
    const next: Summary[] = [];
    for (const parent of level) {
      const page = await api<CitedByPage>("GET", `/records/${encodeURIComponent(parent.id)}/cited-by`, {
        query: { limit: FAN_OUT },
        signal,
      });
      if (page.next_before_seq !== null) cut = true;
      for (const child of page.records as Summary[]) {
        if (seen.size >= MAX_NODES && !seen.has(child.id)) {
          cut = true;
          continue;
        }
        if (!seen.has(child.id)) seen.set(child.id, child);
        edges.add(`${child.id} ${parent.id}`);
        next.push(child);
      }
    }
    level = next;
  }
  const labels = new Map([...seen.values()].map((r) => [r.id, label(r)]));
  return {
    ids: new Map([...seen.values()].map((r) => [label(r), r.id])),
    links: [...edges].map((pair) => {
      const [from, to] = pair.split(" ") as [string, string];
      return {
        id: pair,
        from: labels.get(from) as string,
        to: labels.get(to) as string,
        label: "derives from",
      };
    }),
    center: label(record),
    cut,
  };
}

export function ProvenancePicture(props: { record: FullRecord }) {
  const picture = useApi((signal) => walk(props.record, signal), [props.record.id]);
  const p = picture.data;
  if (p && p.links.length === 0) return null;
  return (
    <Section title="Provenance picture">
      <LoadStatus of={picture} />
      {p ? (
        <>
          <p class="muted">
            Each arrow points from a record to one it derives from, {DEPTH} levels each way
            {p.cut ? ` (more exist: at most ${FAN_OUT} per record and ${MAX_NODES} in all are drawn)` : ""}.
          </p>
          <GraphPicture
            nodes={[...p.ids.keys()]}
            links={p.links}
            seed={p.center}
            title={`Provenance of ${p.center}`}
            nodeHref={(node) => href("/record", { id: p.ids.get(node) })}
          />
        </>
      ) : null}
    </Section>
  );
}
