// Engram's paged reads (timeline, history, runs: next_before_seq; entities: next_after) as async
// iterators: over items by default, over whole pages with pages().

export class Pages<Item, Page> implements AsyncIterable<Item> {
  constructor(
    /** Fetches the page after `token` (undefined: the first page). */
    private readonly fetchPage: (token: number | string | undefined) => Promise<Page>,
    private readonly itemsOf: (page: Page) => Item[],
    /** The next page's token, or null after the last page. */
    private readonly nextOf: (page: Page) => number | string | null,
  ) {}

  async *pages(): AsyncGenerator<Page, void, undefined> {
    let token: number | string | undefined;
    for (;;) {
      const page = await this.fetchPage(token);
      yield page;
      const next = this.nextOf(page);
      if (next === null) return;
      token = next;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    for await (const page of this.pages()) yield* this.itemsOf(page);
  }

  /** Every item, or the first `max` of them (reading no more pages than needed). */
  async toArray(max = Number.POSITIVE_INFINITY): Promise<Item[]> {
    const items: Item[] = [];
    if (max <= 0) return items;
    for await (const item of this) {
      items.push(item);
      if (items.length >= max) break;
    }
    return items;
  }
}
