"""Every refusal Engram sends is RFC 9457 problem details with a stable `code`; the client turns it
into one exception type, so callers branch on `code` rather than on status text."""

from __future__ import annotations

from email.utils import parsedate_to_datetime
from time import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._batches import WriteResult

STANDARD_MEMBERS = {"type", "title", "status", "code", "detail"}


class EngramError(Exception):
    """A request Engram refused (or a response that was not problem details: code `http_<status>`)."""

    status: int
    code: str
    title: str
    detail: str
    problem: dict[str, Any]
    """The whole problem body, extension members included."""
    retry_after: float | None
    """Seconds the server asked to wait before retrying (Retry-After), when it said."""

    def __init__(self, problem: dict[str, Any], retry_after: float | None = None) -> None:
        super().__init__(f"{problem['code']}: {problem['detail']}")
        self.status = int(problem["status"])
        self.code = str(problem["code"])
        self.title = str(problem.get("title", ""))
        self.detail = str(problem["detail"])
        self.problem = problem
        self.retry_after = retry_after

    @property
    def extensions(self) -> dict[str, Any]:
        """The members beyond the standard ones (`errors`, `compatibility`, `limit`, …)."""
        return {key: value for key, value in self.problem.items() if key not in STANDARD_MEMBERS}


def error_from_reply(status: int, reason: str, headers: Any, body: Any) -> EngramError:
    """The error a failed response stands for; `body` is its parsed JSON, or its text."""
    wait = retry_after(headers.get("retry-after"))
    if isinstance(body, dict) and isinstance(body.get("code"), str):
        return EngramError({**body, "status": body.get("status", status)}, wait)
    detail = body if isinstance(body, str) and body else reason or "request failed"
    problem = {"type": "about:blank", "title": reason, "status": status, "code": f"http_{status}", "detail": detail}
    return EngramError(problem, wait)


def retry_after(header: str | None, now: float | None = None) -> float | None:
    """Retry-After in seconds: delta-seconds or an HTTP date; None when absent or unreadable."""
    if header is None or not header.strip():
        return None
    if header.strip().isdigit():
        return float(header.strip())
    try:
        at = parsedate_to_datetime(header).timestamp()
    except (TypeError, ValueError):
        return None
    return max(0.0, at - (time() if now is None else now))


class PartialWriteError(Exception):
    """A write that failed after some of its batches were committed; the cause is `__cause__`."""

    written: WriteResult
    """What the committed batches wrote (indexes into the caller's list)."""
    first_unwritten: int
    """Index of the first row not written; rows from here on were not committed."""

    def __init__(self, cause: BaseException, written: WriteResult, first_unwritten: int) -> None:
        super().__init__(f"the write failed at row {first_unwritten}; rows before it were written: {cause}")
        self.written = written
        self.first_unwritten = first_unwritten
        self.__cause__ = cause
