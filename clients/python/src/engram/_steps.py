"""The client's logic is written once, as generators that yield the steps they need (an HTTP
call, a pause, a call of the caller's handler) and get each step's result back; `Engram` runs the
steps with blocking I/O and `AsyncEngram` with asyncio, so both have the same behaviour by
construction. Retries live here: only where a second attempt cannot do something twice (reads,
and writes whose rows all carry dedupe keys). What is retried: 429 and 503, after Retry-After when
the server sends one, else after an exponential backoff with full jitter; and, for the same safe
requests, a connection that failed before any answer (never a timeout: that bound is the caller's)."""

from __future__ import annotations

import random
from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx

from ._errors import error_from_reply

T = TypeVar("T")

NO_BODY: Any = object()


@dataclass(frozen=True)
class Call:
    """One HTTP request; the runner answers it with a Reply or throws the transport's exception."""

    method: str
    path: str
    params: Mapping[str, Any] | None = None
    body: Any = NO_BODY


@dataclass(frozen=True)
class Reply:
    status: int
    reason: str
    headers: Mapping[str, str]
    body: Any
    """The parsed JSON body, the text of a body that is not JSON, or None when empty."""


@dataclass(frozen=True)
class Pause:
    seconds: float


@dataclass(frozen=True)
class Handle:
    """Calls the caller's handler with `argument` (awaiting it when it returns an awaitable)."""

    handler: Callable[[Any], Any]
    argument: Any


Step = Call | Pause | Handle
Op = Generator[Step, Any, T]
"""An operation: the steps it takes, and what it returns."""


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int = 4
    """Tries in all, the first included."""
    base_delay: float = 0.25
    """The first backoff in seconds, doubled each time."""
    max_delay: float = 8.0
    """The longest backoff in seconds."""
    max_retry_after: float = 60.0
    """The longest Retry-After honoured; a longer one ends the retries."""


NO_RETRY = RetryPolicy(attempts=1)
RETRIED_STATUSES = {429, 503}


def backoff(policy: RetryPolicy, attempt: int) -> float:
    """Full jitter: a random wait up to the doubled delay, so many clients do not retry in step."""
    return random.uniform(0, min(policy.max_delay, policy.base_delay * 2 ** (attempt - 1)))


def send(call: Call, policy: RetryPolicy, safe: bool) -> Op[Any]:
    """`call` until a success (its body), a refusal not worth retrying, or the policy's last try."""
    tries = policy.attempts if safe else 1
    attempt = 1
    while True:
        try:
            reply: Reply = yield call
        except httpx.TransportError as error:
            if attempt >= tries or isinstance(error, httpx.TimeoutException):
                raise
            yield Pause(backoff(policy, attempt))
            attempt += 1
            continue
        if 200 <= reply.status < 300:
            return reply.body
        failure = error_from_reply(reply.status, reply.reason, reply.headers, reply.body)
        if attempt >= tries or reply.status not in RETRIED_STATUSES:
            raise failure
        wait = backoff(policy, attempt) if failure.retry_after is None else failure.retry_after
        if wait > policy.max_retry_after:
            raise failure
        yield Pause(wait)
        attempt += 1
