"""The conversation starter's shapes (docs/catalog.md, "The conversation template"): a chat's
messages as rows of its `messages` collection, and a recall as the arguments of its `recall`
view. `remember` and `recall` send them through the generic routes."""

from __future__ import annotations

from typing import Any, Literal, TypedDict

from .models import RecordRow


class _MessageRequired(TypedDict):
    role: Literal["user", "assistant", "system"]
    content: str
    """What was said: the record's text."""


class ConversationMessage(_MessageRequired, total=False):
    session: str
    """The conversation or thread it belongs to."""
    occurred_at: str
    """When it was said (ISO 8601 with a zone); default the write time."""
    id: str
    """Your id for the message: written as its dedupe_key, so sending it again is a no-op and a
    failed call is retried safely."""


def message_rows(entity: str, messages: list[ConversationMessage], collection: str) -> list[RecordRow]:
    """The messages as records of the entity: text the content, role and session the record's content."""
    rows: list[RecordRow] = []
    for message in messages:
        content: dict[str, Any] = {"role": message["role"]}
        if "session" in message:
            content["session"] = message["session"]
        row: RecordRow = {
            "collection": collection,
            "entity": entity,
            "type": "message",
            "text": message["content"],
            "content": content,
        }
        if "occurred_at" in message:
            row["occurred_at"] = message["occurred_at"]
        if "id" in message:
            row["dedupe_key"] = message["id"]
        rows.append(row)
    return rows


def recall_arguments(entity: str, query: str, limit: int | None) -> dict[str, Any]:
    """The recall view's arguments."""
    return {"user": entity, "query": query, **({} if limit is None else {"limit": limit})}
