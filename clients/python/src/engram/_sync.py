"""`Engram`: the blocking client, over httpx.Client."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any, Generic, TypeVar

import httpx

from ._binding import PageSpec
from ._http import Stepper, reply_of, request_arguments
from ._steps import Call, Op, Pause
from ._surface import Surface

T = TypeVar("T")
Item = TypeVar("Item")
Page = TypeVar("Page")


class Engram(Surface["Engram", httpx.Client]):
    """One workspace key's client. `timeout` (seconds, or an httpx.Timeout) bounds each request;
    `retry` is a RetryPolicy, or False for none; `http_client` replaces the client's own
    httpx.Client (proxies, transports, limits), which the caller then closes."""

    def _open_http(self, timeout: float | httpx.Timeout) -> httpx.Client:
        return httpx.Client(timeout=timeout)

    def _run(self, op: Op[T]) -> T:
        stepper = Stepper(op)
        step = stepper.start()
        while step is not None:
            try:
                if isinstance(step, Call):
                    value: Any = reply_of(self._http.request(**request_arguments(self.url, self._key, step)))
                elif isinstance(step, Pause):
                    time.sleep(step.seconds)
                    value = None
                else:
                    value = step.handler(step.argument)
            except Exception as error:
                step = stepper.failed(error)
                continue
            step = stepper.succeeded(value)
        return stepper.result

    def _pages(self, spec: PageSpec[Item, Page]) -> Pages[Item, Page]:
        return Pages(self, spec)

    def close(self) -> None:
        """Closes the client's connections (not those of an http_client the caller passed)."""
        if self._owned:
            self._http.close()

    def __enter__(self) -> Engram:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Pages(Generic[Item, Page]):
    """A paged read: iterate it for the items across pages, or `pages()` for whole pages. Each
    page is fetched when the iteration reaches it."""

    def __init__(self, client: Engram, spec: PageSpec[Item, Page]) -> None:
        self._client = client
        self._spec = spec

    def pages(self) -> Iterator[Page]:
        token: Any = None
        while True:
            page = self._client._run(self._spec.fetch(token))
            yield page
            token = self._spec.next_token(page)
            if token is None:
                return

    def __iter__(self) -> Iterator[Item]:
        for page in self.pages():
            yield from self._spec.items(page)

    def to_list(self, most: int | None = None) -> list[Item]:
        """Every item, or the first `most` of them (reading no more pages than needed)."""
        items: list[Item] = []
        if most is not None and most <= 0:
            return items
        for item in self:
            items.append(item)
            if most is not None and len(items) >= most:
                break
        return items
