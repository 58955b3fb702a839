// The README's quick start and short tour, with the TypeScript client instead of curl, against
// the demo workspace of `npm start`:
//   ENGRAM_API_KEY=egk_… node --conditions=engram-source --import tsx examples/clients/quick-start.ts
// (--conditions=engram-source runs the client from its TypeScript sources in this repository.)
import { Engram, EngramError } from "@engram/client";

const engram = new Engram({
  url: process.env.ENGRAM_API_URL ?? "http://127.0.0.1:8080",
  key: process.env.ENGRAM_API_KEY ?? "",
});
const show = (label: string, value: unknown) => console.log(`${label}: ${JSON.stringify(value)}`);

const workspace = await engram.workspace();
show("workspace", { name: workspace.name, key: workspace.key.name, limits: workspace.limits });
show("catalog", (await engram.catalog.get()).package);
show(
  "views",
  (await engram.views.list()).views.map((view) => view.name),
);

const written = await engram.records.write([
  {
    collection: "customer_events",
    entity: "acme",
    type: "ticket",
    text: "Card declined at checkout",
    content: { channel: "email", priority: 4 },
    occurred_at: "2026-11-20T09:30:00Z",
    dedupe_key: "ticket-981",
  },
  {
    collection: "customer_facts",
    entity: "acme",
    type: "fact",
    key: "plan",
    text: "On the pro plan",
    content: { value: "pro" },
  },
]);
show("write", written);

for await (const row of engram.timeline({ entity: "acme" }))
  show("timeline", [row.seq, row.collection, row.text]);
show(
  "document",
  (await engram.document({ entity: "acme" })).beliefs.map((belief) => [belief.key, belief.text]),
);

// Searchable once the worker has embedded them.
while ((await engram.workspace()).counts.unready > 0)
  await new Promise((resolve) => setTimeout(resolve, 200));
const found = await engram.search({ mode: "hybrid", q: "payment failed", k: 3 });
show(
  "search",
  found.hits.map((hit) => [hit.id, hit.rank_score]),
);
const view = await engram.views.query("customer_history", { customer: "acme", question: "refund" });
// A view answers as its kind does: a search view with hits, a graph view with nodes and edges.
show("view hits", "hits" in view ? view.hits.length : undefined);
const context = await engram.context({ entity: "acme", task: "refund", budget: 2000 });
show("context", { tokens: context.tokens, records: context.input_record_ids.length });
const brief = await engram.artifacts.render("support_brief", { customer: "acme", question: "refund" });
show("artifact", brief.content.split("\n")[0]);
show(
  "tools",
  (await engram.tools()).tools.map((tool) => tool.name),
);

const consumed = await engram.consume("quick-start", { entity: "acme" }, (page) =>
  show(
    "delta page",
    page.records.map((row) => row.seq),
  ),
);
show("consumed", consumed);

try {
  await engram.answer({ question: "Why was acme's card declined?" });
} catch (error) {
  // The demo's fake model provider cannot answer: conf/models.yaml must name a real model.
  if (error instanceof EngramError) show("answer refused", [error.status, error.code, error.detail]);
  else throw error;
}
