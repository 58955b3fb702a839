"""The client through the README's quick-start flow against a real `engram serve`: write, read
back, search, a view, an artifact, context, memory as of a moment, typed refusals, keys and
erasure; then the same surface through AsyncEngram, and cancellation."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest
from conftest import Server
from support import wait_for

from engram import AsyncEngram, Engram, EngramError, models


@pytest.fixture(scope="module")
def engram(server: Server, support_workspace: Callable[[str], str]) -> Engram:
    return Engram(server.url, support_workspace("quick-start"))


def test_writes_reads_searches_renders_and_erases(engram: Engram) -> None:
    written = engram.records.write(
        [
            {
                "collection": "customer_events",
                "entity": "cust-1",
                "type": "ticket",
                "text": "Refund requested for a duplicate charge on the March invoice",
                "content": {"channel": "email", "topic": "billing", "priority": 4},
                "dedupe_key": "ticket-1",
            },
            {
                "collection": "customer_facts",
                "entity": "cust-1",
                "type": "plan",
                "key": "plan",
                "text": "On the pro plan since 2024",
                "content": {"value": "pro", "tier": "pro"},
            },
        ]
    )
    assert [row["index"] for row in written.inserted] == [0, 1]
    ticket = written.inserted[0]["id"]

    record = engram.records.get(ticket)
    assert (record["entity"], record["collection"], record["content"]["topic"]) == ("cust-1", "customer_events", "billing")
    written_collections = ["customer_events", "customer_facts"]
    assert [row["type"] for row in engram.timeline({"entity": "cust-1", "collections": written_collections})] == ["plan", "ticket"]
    assert [belief["key"] for belief in engram.document({"entity": "cust-1"})["beliefs"]] == ["plan"]

    # Search and the view rank once enrichment (embeddings) has made the records ready.
    wait_for(lambda: engram.workspace()["counts"]["unready"] == 0)
    found = engram.search({"mode": "hybrid", "q": "duplicate charge refund", "k": 5})
    assert found["hits"][0]["id"] == ticket
    view = engram.views.query("customer_history", {"customer": "cust-1", "question": "refund"})
    assert ticket in str(view)
    brief = engram.artifacts.render("support_brief", {"customer": "cust-1", "question": "refund?"})
    assert "pro plan" in brief["content"]
    context = engram.context({"entity": "cust-1", "task": "refund", "budget": 2000})
    assert ticket in context["input_record_ids"]

    preview = engram.erase({"entity": "cust-1"}, dry_run=True, list_records=True)
    assert preview["deleted"] == 2
    assert engram.timeline({"entity": "cust-1"}).to_list() != []
    erased = engram.erase({"entity": "cust-1"})
    assert erased["deleted"] == 2
    assert engram.timeline({"entity": "cust-1"}).to_list() == []


def test_reads_memory_as_of_a_moment(engram: Engram) -> None:
    first = engram.records.write(
        [{"collection": "customer_facts", "entity": "mover", "type": "plan", "key": "plan", "text": "On the free plan"}]
    )
    moment = engram.records.get(first.inserted[0]["id"])["created_at"]
    engram.records.write(
        [{"collection": "customer_facts", "entity": "mover", "type": "plan", "key": "plan", "text": "On the pro plan"}]
    )
    now = engram.document({"entity": "mover"})
    then = engram.document({"entity": "mover", "as_of": moment})
    assert [belief["text"] for belief in now["beliefs"]] == ["On the pro plan"]
    assert [belief["text"] for belief in then["beliefs"]] == ["On the free plan"]
    assert [row["text"] for row in engram.timeline({"entity": "mover", "as_of": moment})] == ["On the free plan"]


def test_raises_typed_errors_with_status_code_detail_and_extensions(engram: Engram, server: Server) -> None:
    with pytest.raises(EngramError) as refused:
        engram.search({"mode": "fuzzy"})  # type: ignore[typeddict-item]
    assert (refused.value.status, refused.value.code) == (422, "request_schema")
    assert refused.value.extensions["errors"]

    with pytest.raises(EngramError) as missing:
        engram.records.get("00000000-0000-4000-8000-000000000000")
    assert (missing.value.status, missing.value.code) == (404, "not_found")
    assert missing.value.detail

    with pytest.raises(EngramError) as stranger:
        Engram(server.url, "egk_" + "A" * 43).workspace()
    assert (stranger.value.status, stranger.value.code) == (401, "unauthorized")

    # The fake model provider cannot answer: 502 answer_model (docs/api.md "`POST /answer`").
    with pytest.raises(EngramError) as unanswered:
        engram.answer({"question": "What plan is cust-1 on?"})
    assert (unanswered.value.status, unanswered.value.code) == (502, "answer_model")


def test_manages_keys_over_http(engram: Engram, server: Server) -> None:
    created = engram.keys.create({"name": "desk-agent", "scope": "read_only", "expires_in": "1d"})
    reader = Engram(server.url, created["api_key"])
    assert reader.workspace()["key"]["scope"] == "read_only"
    assert reader.timeline({"entity": "cust-1"}).to_list() == []
    with pytest.raises(EngramError) as scoped:
        reader.keys.list()
    assert (scoped.value.status, scoped.value.code) == (403, "key_scope")
    listed = [key for key in engram.keys.list() if key["prefix"] == created["api_key"][:12]]
    assert [key["id"] for key in listed] == [created["id"]]
    engram.keys.revoke(created["id"])
    with pytest.raises(EngramError) as revoked:
        reader.workspace()
    assert revoked.value.code == "unauthorized"


def test_reaches_any_route_through_request(engram: Engram) -> None:
    collections = engram.request("GET", "/collections")
    assert "customer_events" in [collection["name"] for collection in collections["collections"]]


def test_async_reads_write_and_iterate(server: Server) -> None:
    async def scenario() -> None:
        async with AsyncEngram(server.url, server.key) as engram:
            # Reads name customer_events: the example package derives profiles into the same entities.
            rows = [
                {"collection": "customer_events", "entity": "async-1", "type": "note", "text": f"note {i}", "dedupe_key": f"async-{i}"}
                for i in range(90)
            ]
            written = await engram.records.write(rows)
            assert [row["index"] for row in written.inserted] == list(range(90))
            texts = [row["text"] async for row in engram.timeline({"entity": "async-1", "collections": ["customer_events"], "limit": 25})]
            assert texts == [f"note {89 - i}" for i in range(90)]
            assert len(await engram.records.list({"type": "note", "limit": 7}).to_list(10)) == 10
            applied: list[str] = []

            async def handler(page: dict[str, list[dict[str, str]]]) -> None:
                await asyncio.sleep(0)
                applied.extend(row["id"] for row in page["records"])

            query = {"entity": "async-1", "collection": "customer_events", "limit": 40}
            done = await engram.consume("async-mirror", query, handler)
            assert (done.pages, done.records, len(set(applied))) == (3, 90, 90)

    asyncio.run(scenario())


def test_cancels_an_async_call(server: Server) -> None:
    async def cancelled() -> None:
        async with AsyncEngram(server.url, server.key) as engram:
            task = asyncio.create_task(engram.workspace())
            await asyncio.sleep(0)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            # The client goes on working after a cancelled call.
            assert (await engram.workspace())["key"]["scope"] == "admin"

    asyncio.run(cancelled())


def test_retries_through_a_proxy_whose_every_first_attempt_is_a_503(engram: Engram) -> None:
    refused: set[str] = set()

    class Proxy(BaseHTTPRequestHandler):
        """Refuses each request once with 503 and Retry-After: 0, then forwards it to the server."""

        def forward(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length") or 0))
            signature = f"{self.command} {self.path} {body!r}"
            if signature not in refused:
                refused.add(signature)
                busy = json.dumps({"type": "about:blank", "title": "Busy", "status": 503, "code": "database_busy", "detail": "busy"}).encode()
                self.send_response(503)
                self.send_header("content-type", "application/problem+json")
                self.send_header("retry-after", "0")
                self.send_header("content-length", str(len(busy)))
                self.end_headers()
                self.wfile.write(busy)
                return
            headers = {name: value for name, value in self.headers.items() if name.lower() not in ("host", "content-length")}
            answer = httpx.request(self.command, engram.url + self.path, headers=headers, content=body)
            self.send_response(answer.status_code)
            for name in ("content-type", "retry-after"):
                if name in answer.headers:
                    self.send_header(name, answer.headers[name])
            self.send_header("content-length", str(len(answer.content)))
            self.end_headers()
            self.wfile.write(answer.content)

        do_GET = do_POST = forward

        def log_message(self, *args: object) -> None:
            pass

    proxy = ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
    threading.Thread(target=proxy.serve_forever, daemon=True).start()
    try:
        via_proxy = Engram(f"http://127.0.0.1:{proxy.server_address[1]}", engram._key)
        rows: list[models.RecordRow] = [
            {"collection": "customer_events", "entity": "proxied", "type": "note", "text": f"proxied {i}", "dedupe_key": f"proxied-{i}"}
            for i in (1, 2, 3)
        ]
        assert [row["index"] for row in via_proxy.records.write(rows).inserted] == [0, 1, 2]
        query: models.TimelineQuery = {"entity": "proxied", "collections": ["customer_events"], "limit": 2}
        assert [row["text"] for row in via_proxy.timeline(query)] == ["proxied 3", "proxied 2", "proxied 1"]
        # GET /workspace (the write limits), the write, and the timeline's two pages: each refused once.
        assert len(refused) == 4
    finally:
        proxy.shutdown()
        proxy.server_close()
