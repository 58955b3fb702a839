"""remember and recall over the conversation starter (`engram catalog init --template
conversation`), published through the client into a workspace of this file's own: on the fake
model provider a message yields a memory citing it, and recall finds both."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from conftest import Server, run_engram
from support import wait_for

from engram import ConversationMessage, Engram


def test_remembers_a_conversation_and_recalls_it(server: Server, new_workspace: Callable[[str], str], tmp_path: Path) -> None:
    run_engram("catalog", "init", str(tmp_path / "chat"), "--template", "conversation")
    engram = Engram(server.url, new_workspace("chat"))
    assert engram.catalog.publish_directory(tmp_path / "chat", "conversation@1.0.0").get("loaded") is True

    said: ConversationMessage = {"role": "user", "content": "I moved to Porto last spring", "id": "m1", "session": "s1"}
    written = engram.remember("sam", [said])
    message = written.inserted[0]["id"]
    record = engram.records.get(message)
    assert (record["collection"], record["text"], record["content"]) == ("messages", "I moved to Porto last spring", {"role": "user", "session": "s1"})
    # A repeated message id is a no-op.
    assert engram.remember("sam", [said]).duplicates == [{"index": 0, "id": message}]

    def memory() -> list[str] | None:
        beliefs = engram.document({"entity": "sam", "collections": ["memories"]})["beliefs"]
        return [citation for belief in beliefs for citation in belief["citations"]] or None

    assert wait_for(memory) == [message]
    wait_for(lambda: engram.workspace()["counts"]["unready"] == 0)
    recalled = engram.recall("sam", "Porto", limit=5)
    assert message in [hit["id"] for hit in recalled["hits"]]
