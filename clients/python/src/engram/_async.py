"""`AsyncEngram`: the asyncio client, over httpx.AsyncClient; cancel a call by cancelling its task."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator
from typing import Any, Generic, TypeVar

import httpx

from ._binding import PageSpec
from ._http import Stepper, reply_of, request_arguments
from ._steps import Call, Op, Pause
from ._surface import Surface

T = TypeVar("T")
Item = TypeVar("Item")
Page = TypeVar("Page")


class AsyncEngram(Surface["AsyncEngram", httpx.AsyncClient]):
    """`Engram` for asyncio: the same methods, each returning an awaitable (paged reads return
    `AsyncPages`, iterated with `async for`); `consume` awaits a handler that returns an awaitable."""

    def _open_http(self, timeout: float | httpx.Timeout) -> httpx.AsyncClient:
        return httpx.AsyncClient(timeout=timeout)

    async def _run(self, op: Op[T]) -> T:
        stepper = Stepper(op)
        step = stepper.start()
        while step is not None:
            try:
                if isinstance(step, Call):
                    response = await self._http.request(**request_arguments(self.url, self._key, step))
                    value: Any = reply_of(response)
                elif isinstance(step, Pause):
                    await asyncio.sleep(step.seconds)
                    value = None
                else:
                    value = step.handler(step.argument)
                    if inspect.isawaitable(value):
                        value = await value
            except Exception as error:
                step = stepper.failed(error)
                continue
            step = stepper.succeeded(value)
        return stepper.result

    def _pages(self, spec: PageSpec[Item, Page]) -> AsyncPages[Item, Page]:
        return AsyncPages(self, spec)

    async def aclose(self) -> None:
        """Closes the client's connections (not those of an http_client the caller passed)."""
        if self._owned:
            await self._http.aclose()

    async def __aenter__(self) -> AsyncEngram:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


class AsyncPages(Generic[Item, Page]):
    """A paged read: `async for` over the items across pages, or over `pages()` for whole pages."""

    def __init__(self, client: AsyncEngram, spec: PageSpec[Item, Page]) -> None:
        self._client = client
        self._spec = spec

    async def pages(self) -> AsyncIterator[Page]:
        token: Any = None
        while True:
            page = await self._client._run(self._spec.fetch(token))
            yield page
            token = self._spec.next_token(page)
            if token is None:
                return

    async def __aiter__(self) -> AsyncIterator[Item]:
        async for page in self.pages():
            for item in self._spec.items(page):
                yield item

    async def to_list(self, most: int | None = None) -> list[Item]:
        """Every item, or the first `most` of them (reading no more pages than needed)."""
        items: list[Item] = []
        if most is not None and most <= 0:
            return items
        async for item in self:
            items.append(item)
            if most is not None and len(items) >= most:
                break
        return items
