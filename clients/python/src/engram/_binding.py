"""How one definition of a method serves both clients: a method of the shared surface is a
generator of steps (`_steps.py`), and the descriptors here bind it to the client it is read from,
so `Engram().search(...)` runs it and returns the result, while `AsyncEngram().search(...)`
returns an awaitable of it. Type checkers see the right return type for each client."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Concatenate, Generic, ParamSpec, TypeVar, overload


from ._steps import Op

if TYPE_CHECKING:
    from ._async import AsyncEngram, AsyncPages
    from ._sync import Engram, Pages

P = ParamSpec("P")
T = TypeVar("T")
C = TypeVar("C")
Item = TypeVar("Item")
Page = TypeVar("Page")
Token = Any


class Bound(Generic[C]):
    """Something whose methods run on a client: the client itself, or one of its namespaces."""

    _client: C


@dataclass(frozen=True)
class PageSpec(Generic[Item, Page]):
    """A paged read: how to fetch the page after a token (None: the first), its items, its next token."""

    fetch: Callable[[Token], Op[Page]]
    items: Callable[[Page], list[Item]]
    next_token: Callable[[Page], Token]


def bind(build: Callable[..., Any], instance: Any, runner: Callable[[Any], Any]) -> Callable[..., Any]:
    """`build` as a method of `instance`, what it builds handed to the client's `runner`."""

    @functools.wraps(build)
    def bound(*args: Any, **kwargs: Any) -> Any:
        return runner(build(instance, *args, **kwargs))

    return bound


class operation(Generic[P, T]):
    """A method that runs an operation on the client it is read from."""

    def __init__(self, build: Callable[Concatenate[Any, P], Op[T]]) -> None:
        self._build = build
        functools.update_wrapper(self, build)

    @overload
    def __get__(self, instance: None, owner: type) -> operation[P, T]: ...
    @overload
    def __get__(self, instance: Bound[Engram], owner: type) -> Callable[P, T]: ...
    @overload
    def __get__(self, instance: Bound[AsyncEngram], owner: type) -> Callable[P, Awaitable[T]]: ...
    def __get__(self, instance: Any, owner: type) -> Any:
        return self if instance is None else bind(self._build, instance, instance._client._run)


class paged(Generic[P, Item, Page]):
    """A method that returns a paged read: `Pages` on `Engram`, `AsyncPages` on `AsyncEngram`."""

    def __init__(self, build: Callable[Concatenate[Any, P], PageSpec[Item, Page]]) -> None:
        self._build = build
        functools.update_wrapper(self, build)

    @overload
    def __get__(self, instance: None, owner: type) -> paged[P, Item, Page]: ...
    @overload
    def __get__(self, instance: Bound[Engram], owner: type) -> Callable[P, Pages[Item, Page]]: ...
    @overload
    def __get__(self, instance: Bound[AsyncEngram], owner: type) -> Callable[P, AsyncPages[Item, Page]]: ...
    def __get__(self, instance: Any, owner: type) -> Any:
        return self if instance is None else bind(self._build, instance, instance._client._pages)
