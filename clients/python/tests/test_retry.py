"""Retries and timeouts against a stand-in server whose answers the test scripts: 503 then 200,
Retry-After, lost connections, and the requests that must never be sent twice."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from engram import AsyncEngram, Engram, EngramError, RetryPolicy

Answer = Callable[[BaseHTTPRequestHandler], None]


def problem(status: int, code: str, headers: dict[str, str] | None = None) -> Answer:
    def answer(handler: BaseHTTPRequestHandler) -> None:
        body = json.dumps({"type": "about:blank", "title": "Busy", "status": status, "code": code, "detail": f"{code} for a test"})
        handler.send_response(status)
        handler.send_header("content-type", "application/problem+json")
        for name, value in (headers or {}).items():
            handler.send_header(name, value)
        handler.send_header("content-length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body.encode())

    return answer


def reply(body: object, status: int = 200, content_type: str = "application/json") -> Answer:
    def answer(handler: BaseHTTPRequestHandler) -> None:
        data = (body if isinstance(body, str) else json.dumps(body)).encode()
        handler.send_response(status)
        handler.send_header("content-type", content_type)
        handler.send_header("content-length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    return answer


def hang_up(handler: BaseHTTPRequestHandler) -> None:
    handler.close_connection = True
    handler.connection.close()


def stall(handler: BaseHTTPRequestHandler) -> None:
    time.sleep(2)


LIMITS = {"limits": {"max_batch_records": 1000, "max_body_bytes": 1 << 20}}
WRITTEN = {"inserted": [{"index": 0, "id": "00000000-0000-4000-8000-000000000001", "ready": True}], "duplicates": [], "job_id": None}


class Script:
    def __init__(self) -> None:
        self.answers: list[Answer] = []
        self.seen: list[tuple[str, str, str | None]] = []


@pytest.fixture()
def stand_in() -> Iterator[tuple[str, Script]]:
    script = Script()

    class Handler(BaseHTTPRequestHandler):
        def handle_one(self) -> None:
            self.rfile.read(int(self.headers.get("content-length") or 0))
            script.seen.append((self.command, self.path, self.headers.get("authorization")))
            (script.answers.pop(0) if script.answers else problem(500, "internal"))(self)

        do_GET = do_POST = do_DELETE = handle_one

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", script
    finally:
        server.shutdown()
        server.server_close()


FAST = RetryPolicy(base_delay=0.001, max_delay=0.005)


def test_retries_a_read_on_503_and_429_sending_the_key_every_time(stand_in: tuple[str, Script]) -> None:
    url, script = stand_in
    script.answers = [problem(503, "database_busy"), problem(429, "rate_limited"), reply({"records": [], "next_before_seq": None, "truncated": False})]
    assert Engram(url, "egk_test", retry=FAST).timeline({"entity": "e"}).to_list() == []
    assert [path for _, path, _ in script.seen] == ["/timeline?entity=e"] * 3
    assert {auth for _, _, auth in script.seen} == {"Bearer egk_test"}


def test_waits_as_long_as_retry_after_says(stand_in: tuple[str, Script]) -> None:
    url, script = stand_in
    script.answers = [problem(503, "database_busy", {"retry-after": "1"}), reply(LIMITS)]
    started = time.monotonic()
    Engram(url, "egk_test", retry=FAST).workspace()
    assert time.monotonic() - started >= 0.95
    assert len(script.seen) == 2


def test_gives_up_at_once_when_retry_after_is_longer_than_it_would_wait(stand_in: tuple[str, Script]) -> None:
    url, script = stand_in
    script.answers = [problem(503, "database_busy", {"retry-after": "120"})]
    with pytest.raises(EngramError) as error:
        Engram(url, "egk_test", retry=FAST).workspace()
    assert (error.value.status, error.value.code, error.value.retry_after) == (503, "database_busy", 120.0)
    assert len(script.seen) == 1


def test_stops_after_the_configured_attempts(stand_in: tuple[str, Script]) -> None:
    url, script = stand_in
    script.answers = [problem(503, "database_busy")] * 5
    with pytest.raises(EngramError):
        Engram(url, "egk_test", retry=FAST).workspace()
    assert len(script.seen) == 4


def test_retries_a_write_whose_rows_all_carry_dedupe_keys_after_a_lost_connection_too(stand_in: tuple[str, Script]) -> None:
    url, script = stand_in
    script.answers = [reply(LIMITS), problem(503, "database_busy"), hang_up, reply(WRITTEN)]
    rows = [{"collection": "c", "entity": "e", "type": "t", "dedupe_key": "k1"}]
    assert len(Engram(url, "egk_test", retry=FAST).records.write(rows).inserted) == 1
    assert len([seen for seen in script.seen if seen[0] == "POST"]) == 3


def test_never_retries_an_unkeyed_write_an_erasure_or_a_refusal_other_than_429_503(stand_in: tuple[str, Script]) -> None:
    url, script = stand_in
    engram = Engram(url, "egk_test", retry=FAST)
    script.answers = [reply(LIMITS), problem(503, "database_busy")]
    rows = [{"collection": "c", "entity": "e", "type": "t", "dedupe_key": "k1"}, {"collection": "c", "entity": "e", "type": "t"}]
    with pytest.raises(EngramError, match="database_busy"):
        engram.records.write(rows)
    script.answers = [problem(503, "database_busy")]
    with pytest.raises(EngramError, match="database_busy"):
        engram.erase({"entity": "e"})
    script.answers = [problem(422, "request_schema")]
    with pytest.raises(EngramError, match="request_schema"):
        engram.search({"q": "x"})
    assert len([seen for seen in script.seen if seen[0] == "POST"]) == 3


def test_does_not_retry_when_retries_are_off(stand_in: tuple[str, Script]) -> None:
    url, script = stand_in
    script.answers = [problem(503, "database_busy"), reply(LIMITS)]
    with pytest.raises(EngramError):
        Engram(url, "egk_test", retry=False).workspace()
    assert len(script.seen) == 1


def test_reads_a_response_that_is_not_problem_details_as_http_status(stand_in: tuple[str, Script]) -> None:
    url, script = stand_in
    script.answers = [reply("no such thing", status=404, content_type="text/plain")]
    with pytest.raises(EngramError) as error:
        Engram(url, "egk_test").workspace()
    assert (error.value.status, error.value.code, error.value.detail) == (404, "http_404", "no such thing")


def test_a_timeout_ends_the_call_and_is_not_retried(stand_in: tuple[str, Script]) -> None:
    url, script = stand_in
    script.answers = [stall, reply(LIMITS)]
    with pytest.raises(httpx.TimeoutException):
        Engram(url, "egk_test", retry=FAST, timeout=0.3).workspace()
    assert len(script.seen) == 1


def test_cancelling_an_async_call_cancels_its_retry_wait(stand_in: tuple[str, Script]) -> None:
    url, script = stand_in
    script.answers = [problem(503, "database_busy", {"retry-after": "30"})]

    async def scenario() -> None:
        async with AsyncEngram(url, "egk_test") as engram:
            task = asyncio.create_task(engram.workspace())
            while not script.seen:
                await asyncio.sleep(0.01)
            started = time.monotonic()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            assert time.monotonic() - started < 1

    asyncio.run(scenario())
