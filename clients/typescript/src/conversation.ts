// The conversation starter's shapes (docs/catalog.md, "The conversation template"): a chat's
// messages as rows of its `messages` collection, and a recall as the arguments of its `recall`
// view. Engram.remember and Engram.recall send them through the generic routes.
import type * as T from "./types.js";

/** One message of a conversation. */
export interface ConversationMessage {
  role: "user" | "assistant" | "system";
  /** What was said: the record's text. */
  content: string;
  /** The conversation or thread it belongs to. */
  session?: string;
  /** When it was said (ISO 8601 with a zone); default the write time. */
  occurred_at?: string;
  /**
   * Your id for the message: written as its dedupe_key, so sending it again is a no-op and a
   * failed call is retried safely.
   */
  id?: string;
}

export interface RememberOptions {
  /** The event collection messages go to (default "messages", the starter's). */
  collection?: string;
}

export interface RecallOptions {
  /** Most results (the view's default when left out). */
  limit?: number;
  /** The view to query (default "recall", the starter's). */
  view?: string;
}

/** The messages as records of the entity: text the content, role and session the record's content. */
export function messageRows(
  entity: string,
  messages: ConversationMessage[],
  options: RememberOptions = {},
): T.RecordRow[] {
  return messages.map((message) => ({
    collection: options.collection ?? "messages",
    entity,
    type: "message",
    text: message.content,
    content: { role: message.role, ...(message.session === undefined ? {} : { session: message.session }) },
    ...(message.occurred_at === undefined ? {} : { occurred_at: message.occurred_at }),
    ...(message.id === undefined ? {} : { dedupe_key: message.id }),
  }));
}

/** The recall view's arguments. */
export function recallArguments(
  entity: string,
  query: string,
  options: RecallOptions = {},
): Record<string, unknown> {
  return { user: entity, query, ...(options.limit === undefined ? {} : { limit: options.limit }) };
}
