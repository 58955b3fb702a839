// EngramStore through LangGraph's own API against a real engram serve (one server for the file:
// starting it and publishing the fragment is most of its time): the store's methods (put, get,
// delete, search, listNamespaces), and a graph compiled with the store. Each checks what lands in
// Engram as well as what LangGraph sees.
import type { Engram } from "@engram/client";
import { DEFAULT_COLLECTION, EngramStore } from "@engram/langgraph";
import {
  Annotation,
  END,
  getStore,
  type LangGraphRunnableConfig,
  START,
  StateGraph,
} from "@langchain/langgraph";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningEngram } from "../../../test/support/engram-serve.js";
import { engramWithFragment, enriched } from "./engram.js";

let server: RunningEngram;
let engram: Engram;
let store: EngramStore;

beforeAll(async () => {
  ({ server, engram } = await engramWithFragment());
  store = new EngramStore({ engram });
});

afterAll(async () => {
  await server?.stop();
});

const keys = (items: { key: string }[]) => items.map((item) => item.key);

describe("a store round trip", () => {
  const ns = ["users", "alice", "prefs"];

  it("puts, reads, updates, lists, filters and deletes items as keyed Engram records", async () => {
    await store.put(ns, "theme", { color: "dark", size: 3 });
    const first = await store.get(ns, "theme");
    expect(first).toMatchObject({ namespace: ns, key: "theme", value: { color: "dark", size: 3 } });
    expect(first?.createdAt.getTime()).toBe(first?.updatedAt.getTime());

    await store.put(ns, "theme", { color: "light", size: 3 });
    await store.put(ns, "font", { family: "mono", size: 12 });
    const second = await store.get(ns, "theme");
    expect(second?.value).toEqual({ color: "light", size: 3 });
    // An update keeps the item's creation time and moves its update time.
    expect(second?.createdAt).toEqual(first?.createdAt);
    expect(second?.updatedAt.getTime()).toBeGreaterThan(first?.updatedAt.getTime() as number);

    // In Engram: one keyed record per version, in the namespace's entity.
    const entity = store.entityOf(ns);
    expect(entity).toBe("langgraph_items:users/alice/prefs/");
    const versions = await engram.history({ entity, collection: DEFAULT_COLLECTION, key: "theme" }).toArray();
    expect(versions.map((v) => v.content)).toEqual([
      { namespace: ns, value: { color: "light", size: 3 } },
      { namespace: ns, value: { color: "dark", size: 3 } },
    ]);

    // Without a query: every item under the prefix, the most recently updated first.
    expect(keys(await store.search(["users"]))).toEqual(["font", "theme"]);
    expect(keys(await store.search(["users", "alice"], { limit: 1, offset: 1 }))).toEqual(["theme"]);
    expect(keys(await store.search(["users"], { filter: { size: { $gt: 5 } } }))).toEqual(["font"]);
    expect(keys(await store.search(["users"], { filter: { color: "light" } }))).toEqual(["theme"]);
    expect(keys(await store.search(["users"], { filter: { color: { $in: ["dark"] } } }))).toEqual([]);
    expect(await store.listNamespaces({ prefix: ["users"] })).toEqual([ns]);

    await store.delete(ns, "theme");
    expect(await store.get(ns, "theme")).toBeNull();
    expect(keys(await store.search(["users"]))).toEqual(["font"]);
    const [tombstone] = await engram
      .history({ entity, collection: DEFAULT_COLLECTION, key: "theme" })
      .toArray();
    expect(tombstone?.tombstone).toBe(true);

    // Deleting what is not there writes nothing.
    await store.delete(ns, "never-put");
    expect(
      await engram.history({ entity, collection: DEFAULT_COLLECTION, key: "never-put" }).toArray(),
    ).toEqual([]);
  });

  it("starts a new lifetime when a deleted key is put again", async () => {
    await store.put(["users", "erin"], "k", { n: 1 });
    const before = await store.get(["users", "erin"], "k");
    await store.delete(["users", "erin"], "k");
    await store.put(["users", "erin"], "k", { n: 2 });
    const after = await store.get(["users", "erin"], "k");
    expect(after?.value).toEqual({ n: 2 });
    expect(after?.createdAt.getTime()).toBeGreaterThan(before?.createdAt.getTime() as number);
  });

  it("refuses keys and namespaces Engram cannot hold, before writing", async () => {
    await expect(store.put(["users"], "x".repeat(257), { a: 1 })).rejects.toThrow(/keys are 1 to 256/);
    await expect(store.put(["users"], "  ", { a: 1 })).rejects.toThrow(/keys are 1 to 256/);
    await expect(store.put(["n".repeat(250)], "k", { a: 1 })).rejects.toThrow(/too long for Engram/);
  });
});

describe("search with a query", () => {
  const ns = ["notes", "bob"];

  it("ranks the relevant item first with Engram's hybrid search", async () => {
    await store.put(ns, "pizza", { text: "Bob loves pizza with extra cheese and olives" });
    await store.put(ns, "hiking", { text: "Bob goes hiking in the Alps every summer" });
    await store.put(ns, "job", { text: "Bob works as a data engineer at a bank" });
    await enriched(engram, store.entityOf(ns));

    const hits = await store.search(["notes"], { query: "which pizza toppings", limit: 3 });
    expect(keys(hits)[0]).toBe("pizza");
    expect(hits).toHaveLength(3);
    const [best, next] = hits;
    expect(best?.score).toBeGreaterThan(next?.score as number);
    expect(best?.value).toEqual({ text: "Bob loves pizza with extra cheese and olives" });

    // A filter applies to the values of the hits, exactly.
    const filtered = await store.search(["notes"], {
      query: "pizza",
      filter: { text: { $ne: best?.value.text } },
    });
    expect(keys(filtered)).not.toContain("pizza");
    expect(keys(filtered).sort()).toEqual(["hiking", "job"]);
    await expect(store.search(["notes"], { query: "pizza", offset: 95, limit: 10 })).rejects.toThrow(
      /at most 100/,
    );
  });

  it("indexes the configured fields, and an item put with index false is listed but never matched", async () => {
    const titled = new EngramStore({ engram, index: { fields: ["title", "tags[*]"] } });
    const docs = ["docs"];
    await titled.put(docs, "guide", { title: "Typescript guide", tags: ["lang", "web"], body: "volcano" });
    await titled.put(docs, "secret", { title: "volcano notes" }, false);
    await enriched(engram, titled.entityOf(docs));

    const [guide] = await engram
      .history({ entity: titled.entityOf(docs), collection: DEFAULT_COLLECTION, key: "guide" })
      .toArray();
    const record = await engram.records.get(guide?.id as string);
    expect(record.text).toBe("Typescript guide\nlang\nweb");
    expect(keys(await titled.search(docs, { query: "volcano" }))).toEqual(["guide"]);
    expect(keys(await titled.search(docs)).sort()).toEqual(["guide", "secret"]);
  });
});

describe("namespace isolation", () => {
  it("never shows items of one namespace in another's lists and searches", async () => {
    await store.put(["a", "b"], "k1", { text: "apples from the orchard" });
    await store.put(["a", "b", "deep"], "k3", { text: "apples in the cellar" });
    await store.put(["a", "c"], "k2", { text: "oranges from the market" });
    // A label holding the separator is its own namespace, not a path below ["a", "b"].
    await store.put(["a", "b/c"], "k4", { text: "apples with a slash" });
    await store.put(["a", "b%2Fc"], "k5", { text: "apples with an escape" });
    for (const ns of [
      ["a", "b"],
      ["a", "b", "deep"],
      ["a", "c"],
      ["a", "b/c"],
      ["a", "b%2Fc"],
    ]) {
      await enriched(engram, store.entityOf(ns));
    }

    const inC = await store.search(["a", "c"], { query: "apples orchard" });
    expect(inC.map((item) => item.namespace)).toEqual([["a", "c"]]);
    expect(keys(await store.search(["a", "c"]))).toEqual(["k2"]);
    const inB = await store.search(["a", "b"], { query: "apples" });
    expect(keys(inB).sort()).toEqual(["k1", "k3"]);
    expect(
      keys(await store.search(["a", "b"], { query: "apples", filter: { text: "apples in the cellar" } })),
    ).toEqual(["k3"]);
    expect(await store.get(["a", "c"], "k1")).toBeNull();
    expect((await store.get(["a", "b/c"], "k4"))?.namespace).toEqual(["a", "b/c"]);
    expect(store.entityOf(["a", "b/c"])).toBe("langgraph_items:a/b%2Fc/");

    expect(await store.listNamespaces({ prefix: ["a"] })).toEqual([
      ["a", "b"],
      ["a", "b", "deep"],
      ["a", "b%2Fc"],
      ["a", "b/c"],
      ["a", "c"],
    ]);
    expect(await store.listNamespaces({ prefix: ["a", "b"] })).toEqual([
      ["a", "b"],
      ["a", "b", "deep"],
    ]);
    expect(await store.listNamespaces({ prefix: ["a"], maxDepth: 2, limit: 2, offset: 1 })).toEqual([
      ["a", "b%2Fc"],
      ["a", "b/c"],
    ]);
    expect(await store.listNamespaces({ suffix: ["deep"] })).toEqual([["a", "b", "deep"]]);
    expect(await store.listNamespaces({ prefix: ["*", "c"] })).toEqual([["a", "c"]]);
  });
});

describe("a graph compiled with the store", () => {
  const State = Annotation.Root({
    user: Annotation<string>(),
    message: Annotation<string>(),
    recalled: Annotation<string[]>(),
  });

  async function recall(state: typeof State.State, config: LangGraphRunnableConfig) {
    if (!config.store) throw new Error("the graph was compiled without a store");
    const memories = await config.store.search(["memories", state.user], { query: state.message, limit: 3 });
    return { recalled: memories.map((memory) => String(memory.value.text)) };
  }

  async function remember(state: typeof State.State) {
    const graphStore = getStore();
    if (!graphStore) throw new Error("the graph was compiled without a store");
    await graphStore.put(["memories", state.user], crypto.randomUUID(), { text: state.message });
    return {};
  }

  it("runs a graph whose nodes read and write memories in Engram through the store", async () => {
    const graph = new StateGraph(State)
      .addNode("recall", recall)
      .addNode("remember", remember)
      .addEdge(START, "recall")
      .addEdge("recall", "remember")
      .addEdge("remember", END)
      .compile({ store });

    const first = await graph.invoke({ user: "carol", message: "My favourite colour is teal" });
    expect(first.recalled).toEqual([]);

    // The memory is a keyed record of the user's namespace in Engram.
    const entity = store.entityOf(["memories", "carol"]);
    const rows = await engram.timeline({ entity, collections: [DEFAULT_COLLECTION] }).toArray();
    expect(rows).toHaveLength(1);
    expect(rows[0]?.text).toBe(JSON.stringify({ text: "My favourite colour is teal" }));
    await enriched(engram, entity);

    const second = await graph.invoke({ user: "carol", message: "Which colour do I like?" });
    expect(second.recalled).toEqual(["My favourite colour is teal"]);
    const third = await graph.invoke({ user: "dave", message: "Which colour do I like?" });
    expect(third.recalled).toEqual([]);

    await enriched(engram, entity);
    const memories = await store.search(["memories", "carol"], { query: "favourite colour" });
    expect(memories.map((memory) => memory.value.text)).toEqual([
      "My favourite colour is teal",
      "Which colour do I like?",
    ]);
    expect(await store.listNamespaces({ prefix: ["memories"] })).toEqual([
      ["memories", "carol"],
      ["memories", "dave"],
    ]);
  });
});
