"""What both clients' runners share: a Call as httpx request arguments, an httpx response as a
Reply, and the walk through an operation's steps."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Generic, TypeVar

import httpx

from ._batches import compact_json
from ._steps import NO_BODY, NO_RETRY, Call, Op, Reply, RetryPolicy, Step
from ._version import VERSION

T = TypeVar("T")

USER_AGENT = f"engram-client-python/{VERSION}"


def retry_policy(retry: RetryPolicy | bool | None) -> RetryPolicy:
    """The policy a client's `retry` option names: None or True the defaults, False no retries."""
    if retry is False:
        return NO_RETRY
    return RetryPolicy() if retry is None or retry is True else retry


def checked_url(url: str, key: str) -> str:
    if not url:
        raise ValueError("Engram needs the API's url")
    if not key:
        raise ValueError("Engram needs a workspace key")
    return url.rstrip("/")


def request_arguments(base_url: str, key: str, call: Call) -> dict[str, Any]:
    """httpx.request's arguments for a call: the key, the query (booleans as true/false, lists
    repeated, None left out) and the body as compact JSON (the size batches are cut by)."""
    headers = {"authorization": f"Bearer {key}", "user-agent": USER_AGENT}
    arguments: dict[str, Any] = {"method": call.method, "url": base_url + call.path, "headers": headers}
    if call.params:
        arguments["params"] = query_params(call.params)
    if call.body is not NO_BODY:
        headers["content-type"] = "application/json"
        arguments["content"] = compact_json(call.body)
    return arguments


def query_params(params: Mapping[str, Any]) -> list[tuple[str, str]]:
    pairs: list[tuple[str, str]] = []
    for name, value in params.items():
        for item in value if isinstance(value, (list, tuple)) else [value]:
            if item is None:
                continue
            pairs.append((name, ("true" if item else "false") if isinstance(item, bool) else str(item)))
    return pairs


def reply_of(response: httpx.Response) -> Reply:
    body: Any = None
    if response.content:
        try:
            body = response.json()
        except ValueError:
            body = response.text
    return Reply(response.status_code, response.reason_phrase, response.headers, body)


class Stepper(Generic[T]):
    """Walks an operation: hands it each step's result (or failure) and gets the next step."""

    def __init__(self, op: Op[T]) -> None:
        self._op = op
        self.result: T

    def start(self) -> Step | None:
        return self._advance(lambda: next(self._op))

    def succeeded(self, value: Any) -> Step | None:
        return self._advance(lambda: self._op.send(value))

    def failed(self, error: BaseException) -> Step | None:
        return self._advance(lambda: self._op.throw(error))

    def _advance(self, resume: Any) -> Step | None:
        """The next step, or None once the operation returned (its value is then `result`)."""
        try:
            return resume()  # type: ignore[no-any-return]
        except StopIteration as stop:
            self.result = stop.value
            return None
