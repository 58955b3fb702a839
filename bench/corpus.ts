// The synthetic memory of one workspace, fixed by the seed: customer events (most rows), keyed
// customer facts with supersessions and tombstones, knowledge pages and graph edges between
// them, spread over a year. Every row is valid for examples/catalog/collections/support.yaml.
import { between, pick, type Random, rng, seedOf, weighted, zipf } from "./random.js";
import { sentence, type Vocabulary } from "./vocabulary.js";

/** One row of POST /records (spec: Record write fields). */
export interface WriteRow {
  collection: string;
  entity: string;
  type: string;
  text: string;
  content: Record<string, unknown>;
  occurred_at: string;
  key?: string;
  tombstone?: boolean;
}

/** Share of rows per kind; the rest are customer events. */
const FACT_SHARE = 0.11;
const PAGE_SHARE = 0.03;
const EDGE_SHARE = 0.05;
const TOMBSTONE_SHARE = 0.05;
/** Rows per customer and per page, on average: sets how many entities a corpus has. */
const EVENTS_PER_CUSTOMER = 40;
const ROWS_PER_PAGE = 100;
/** The corpus ends here (fixed, so a seed gives the same rows on any day) and spans a year. */
const END = Date.parse("2025-12-31T00:00:00Z");
const SPAN_MS = 365 * 24 * 3600 * 1000;

const EVENT_TYPES = ["ticket", "call", "email", "chat"] as const;
const EVENT_TYPE_WEIGHTS = [45, 15, 25, 15];
/** The channel a type arrives by (tickets come from the web form or by email). */
const CHANNELS: Record<string, readonly string[]> = {
  ticket: ["web", "email"],
  call: ["phone"],
  email: ["email"],
  chat: ["chat", "web"],
};
const PRIORITY_WEIGHTS = [35, 30, 20, 10, 5];
const TOPICS = [
  "billing",
  "login",
  "performance",
  "integration",
  "shipping",
  "refunds",
  "security",
  "onboarding",
  "data-export",
  "mobile",
  "outage",
  "pricing",
];
const FACT_KEYS = ["plan", "tier", "phone", "email", "address", "language", "timezone", "account_manager"];
const TIERS = ["free", "pro", "enterprise"] as const;
const PREDICATES = ["links_to", "part_of", "related_to", "mentions", "replaces"];

export function customerId(n: number): string {
  return `customer-${String(n + 1).padStart(5, "0")}`;
}

export function pageId(n: number): string {
  return `page-${String(n + 1).padStart(5, "0")}`;
}

/** How many customers and pages a corpus of `records` rows has. */
export function entityCounts(records: number): { customers: number; pages: number } {
  return {
    customers: Math.max(20, Math.ceil(records / EVENTS_PER_CUSTOMER)),
    pages: Math.max(10, Math.ceil(records / ROWS_PER_PAGE)),
  };
}

/**
 * Entity draws: a mild Zipf (s = 0.8), so some customers and pages are busy and most are
 * quiet. Queries use the same draw, so a scoped query usually names an entity with history.
 */
export function entityPicker(records: number) {
  const { customers, pages } = entityCounts(records);
  const customerRank = zipf(customers, 0.8);
  const pageRank = zipf(pages, 1.0);
  return {
    customer: (random: Random) => customerId(customerRank(random)),
    page: (random: Random) => pageId(pageRank(random)),
  };
}

function factValue(random: Random, vocabulary: Vocabulary, key: string, entity: string) {
  switch (key) {
    case "tier": {
      const tier = pick(random, TIERS);
      return { text: `tier: ${tier}`, content: { value: tier, tier } };
    }
    case "phone": {
      const phone = `+1 555 ${between(random, 100, 999)} ${between(random, 1000, 9999)}`;
      return { text: `phone: ${phone}`, content: { value: phone } };
    }
    case "email": {
      const email = `${sentence(vocabulary, random, 1)}.${entity}@example.com`;
      return { text: `email: ${email}`, content: { value: email } };
    }
    default: {
      const value = sentence(vocabulary, random, between(random, 2, 6));
      return { text: `${key.replace("_", " ")}: ${value}`, content: { value } };
    }
  }
}

/** The rows of one workspace, ordered by occurred_at (a year of history, oldest first). */
export function generateCorpus(seed: number, records: number, vocabulary: Vocabulary): WriteRow[] {
  const random = rng(seedOf(seed, "corpus"));
  const pickEntity = entityPicker(records);
  const rows: WriteRow[] = [];
  for (let i = 0; i < records; i++) {
    const at = END - SPAN_MS + (SPAN_MS * i) / records + random() * 3_600_000;
    const occurred_at = new Date(at).toISOString();
    const kind = random();
    if (kind < FACT_SHARE) {
      const entity = pickEntity.customer(random);
      const key = pick(random, FACT_KEYS);
      if (random() < TOMBSTONE_SHARE) {
        // A retraction: the key no longer holds (its older versions stay in history).
        rows.push({
          collection: "customer_facts",
          entity,
          type: "fact",
          key,
          tombstone: true,
          text: "",
          content: {},
          occurred_at,
        });
        continue;
      }
      // Facts of busy customers are written again and again: each write supersedes the last.
      rows.push({
        collection: "customer_facts",
        entity,
        type: "fact",
        key,
        ...factValue(random, vocabulary, key, entity),
        occurred_at,
      });
    } else if (kind < FACT_SHARE + PAGE_SHARE) {
      const page = pickEntity.page(random);
      const title = sentence(vocabulary, random, between(random, 2, 5));
      rows.push({
        collection: "pages",
        entity: "kb",
        type: "page",
        key: page,
        text: `${title}. ${sentence(vocabulary, random, between(random, 30, 120))}`,
        content: { title },
        occurred_at,
      });
    } else if (kind < FACT_SHARE + PAGE_SHARE + EDGE_SHARE) {
      const subject = pickEntity.page(random);
      const object = pickEntity.page(random);
      const predicate = pick(random, PREDICATES);
      rows.push({
        collection: "edges",
        entity: subject,
        type: "link",
        text: `${subject} ${predicate.replace("_", " ")} ${object}`,
        content: { subject, object, predicate },
        occurred_at,
      });
    } else {
      const type = EVENT_TYPES[weighted(random, EVENT_TYPE_WEIGHTS)] as string;
      const content: Record<string, unknown> = {
        channel: pick(random, CHANNELS[type] as readonly string[]),
        priority: 1 + weighted(random, PRIORITY_WEIGHTS),
        topic: pick(random, TOPICS),
      };
      if (random() < 0.3) {
        content.tags = [
          ...new Set(Array.from({ length: between(random, 1, 3) }, () => pick(random, TOPICS))),
        ];
      }
      rows.push({
        collection: "customer_events",
        entity: pickEntity.customer(random),
        type,
        // Ticket-length texts: a short chat line up to a long email.
        text: sentence(vocabulary, random, between(random, 8, 60)),
        content,
        occurred_at,
      });
    }
  }
  return rows;
}
