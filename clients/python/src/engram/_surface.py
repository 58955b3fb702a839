"""Every method of the Engram clients, written once as operations (`_binding.py`): a method per
thing a memory user does, over the routes of docs/api.md, with what raw routes leave to the
caller: paging, batching at the server's limits, the replay protocol and retries where they are
safe. Requests and responses are the TypedDicts of `models.py` (generated from /openapi.json)."""

from __future__ import annotations

import builtins
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar, cast
from urllib.parse import quote

import httpx

from . import models as m
from ._batches import DEFAULT_LIMITS, Batch, WriteResult, split_batches
from ._binding import Bound, PageSpec, operation, paged
from ._catalog import read_catalog_directory
from ._conversation import ConversationMessage, message_rows, recall_arguments
from ._errors import PartialWriteError
from ._http import checked_url, retry_policy
from ._steps import NO_BODY, Call, Handle, Op, Pause, RetryPolicy, send

C = TypeVar("C", bound="Surface[Any, Any]")
H = TypeVar("H")

SAFE = True
"""Repeating the request is harmless, so it is retried."""
UNSAFE = False

FINISHED_JOB_STATES = {"succeeded", "dead", "cancelled"}


def segment(value: str) -> str:
    """A path parameter, encoded."""
    return quote(value, safe="")


class Part(Bound[C]):
    """A namespace of the client's methods (`records`, `keys`, …) and the one way they call."""

    def __init__(self, client: C) -> None:
        self._client = client

    def _call(
        self,
        method: str,
        path: str,
        *,
        safe: bool,
        params: Mapping[str, Any] | None = None,
        body: Any = NO_BODY,
    ) -> Op[Any]:
        return send(Call(method, path, params, body), self._client.retry_policy, safe)

    def _paged_read(
        self, path: str, query: Mapping[str, Any], token: str, items: str, next_token: str
    ) -> PageSpec[Any, Any]:
        """A newest-first (or name-ordered) read whose page after `token` is asked by that parameter."""
        return PageSpec(
            lambda value: self._call(
                "GET", path, safe=SAFE, params={**query, **({} if value is None else {token: value})}
            ),
            lambda page: cast("list[Any]", page[items]),
            lambda page: page[next_token],
        )


class Records(Part[C]):
    def _write(self, rows: builtins.list[m.RecordRow]) -> Op[WriteResult]:
        """POST /records, in as many batches as the server's limits need (each batch atomic). Batches
        whose rows all carry a dedupe_key are retried on 429/503; indexes point into `rows`."""
        result = WriteResult()
        # An empty write goes to the server as it is, for its refusal rather than a silent success.
        batches = split_batches(rows, (yield from self._client._write_limits())) if rows else [Batch(0, rows)]
        for batch in batches:
            safe = bool(batch.rows) and all("dedupe_key" in row for row in batch.rows)
            try:
                answer = yield from self._call("POST", "/records", safe=safe, body={"records": batch.rows})
            except Exception as error:
                if batch.start == 0:
                    raise
                raise PartialWriteError(error, result, batch.start) from error
            result.merge(batch, answer)
        return result

    write = operation(_write)

    @paged
    def list(self, query: m.RecordsQuery | None = None) -> PageSpec[m.RecordsPageRecord, m.RecordsPage]:
        """GET /records: the workspace's records across entities, newest first, across pages."""
        return self._paged_read("/records", query or {}, "before", "records", "next_before")

    @operation
    def get(self, id: str) -> Op[m.StoredRecord]:
        """GET /records/{id}: one full record."""
        return (yield from self._call("GET", f"/records/{segment(id)}", safe=SAFE))


class Views(Part[C]):
    @operation
    def list(self) -> Op[m.ViewList]:
        """GET /views: every loaded view version."""
        return (yield from self._call("GET", "/views", safe=SAFE))

    @operation
    def query(
        self, name: str, params: Mapping[str, Any] | None = None, *, explain: bool = False
    ) -> Op[m.ViewResponse]:
        """POST /views/{name}/query with the view's parameters."""
        path = f"/views/{segment(name)}/query"
        query = {"explain": True} if explain else None
        return (yield from self._call("POST", path, safe=SAFE, params=query, body=dict(params or {})))


class Artifacts(Part[C]):
    @operation
    def render(self, name: str, params: Mapping[str, Any] | None = None) -> Op[m.RenderResponse]:
        """POST /artifacts/{name}/render: a deterministic render and its manifest."""
        path = f"/artifacts/{segment(name)}/render"
        return (yield from self._call("POST", path, safe=SAFE, body=dict(params or {})))


class Catalog(Part[C]):
    @operation
    def get(self) -> Op[m.CatalogInfo]:
        """GET /catalog: the installed package and its hash."""
        return (yield from self._call("GET", "/catalog", safe=SAFE))

    def _publish(
        self, request: m.PublishRequest, *, dry_run: bool = False, diff: bool = False
    ) -> Op[m.PublishResponse]:
        """POST /catalog: publishes a package (files by relative path); `dry_run` only reports
        compatibility (and, with `diff`, what would change). The same package and files publish to
        the same catalog, so a repeat changes nothing and the call is retried."""
        query = {"dry_run": True, **({"diff": True} if diff else {})} if dry_run else None
        return (yield from self._call("POST", "/catalog", safe=SAFE, params=query, body=request))

    publish = operation(_publish)

    @operation
    def publish_directory(
        self, directory: str | Path, package: str, *, dry_run: bool = False, diff: bool = False
    ) -> Op[m.PublishResponse]:
        """Publishes a catalog directory, selecting `package` (name@semver) among its manifests."""
        request: m.PublishRequest = {"package": package, "files": read_catalog_directory(directory)}
        return (yield from self._publish(request, dry_run=dry_run, diff=diff))


class Derivations(Part[C]):
    @operation
    def run(self, name: str, entity: str) -> Op[m.RunQueued]:
        """POST /processors/{name}/run: queues a derivation for an entity (not retried: a repeat may run it twice)."""
        path = f"/processors/{segment(name)}/run"
        return (yield from self._call("POST", path, safe=UNSAFE, body={"entity": entity}))


class Runs(Part[C]):
    @paged
    def list(self, query: m.RunsQuery | None = None) -> PageSpec[m.RunsPageRun, m.RunsPage]:
        """GET /runs: run summaries, newest first, across pages."""
        return self._paged_read("/runs", query or {}, "before_seq", "runs", "next_before_seq")

    @operation
    def get(self, id: str) -> Op[m.Run]:
        """GET /runs/{id}: one run in full, with its emitted records."""
        return (yield from self._call("GET", f"/runs/{segment(id)}", safe=SAFE))


class Jobs(Part[C]):
    @paged
    def list(self, query: m.JobsQuery | None = None) -> PageSpec[m.JobsPageJob, m.JobsPage]:
        """GET /jobs: the workspace's background jobs, newest first, across pages."""
        return self._paged_read("/jobs", query or {}, "before", "jobs", "next_before")

    @operation
    def get(self, id: str) -> Op[m.Job]:
        """GET /jobs/{id}: a background job's state."""
        return (yield from self._call("GET", f"/jobs/{segment(id)}", safe=SAFE))

    @operation
    def retry(self, id: str) -> Op[m.Job]:
        """POST /jobs/{id}/retry: requeues a dead job."""
        return (yield from self._call("POST", f"/jobs/{segment(id)}/retry", safe=UNSAFE))

    @operation
    def wait(self, id: str, *, interval: float = 0.5) -> Op[m.Job]:
        """Polls GET /jobs/{id} every `interval` seconds until the job has finished (succeeded,
        dead or cancelled)."""
        while True:
            job: m.Job = yield from self._call("GET", f"/jobs/{segment(id)}", safe=SAFE)
            if job["state"] in FINISHED_JOB_STATES:
                return job
            yield Pause(interval)


class Keys(Part[C]):
    """The workspace's keys; an admin key's only (403 key_scope otherwise)."""

    @operation
    def list(self) -> Op[builtins.list[m.KeyListKey]]:
        """GET /keys: every key with its scope and prefix, oldest first; never a key."""
        page: m.KeyList = yield from self._call("GET", "/keys", safe=SAFE)
        return page["keys"]

    @operation
    def create(self, request: m.KeyRequest) -> Op[m.CreatedKey]:
        """POST /keys: a read_write or read_only key, shown only in this reply."""
        return (yield from self._call("POST", "/keys", safe=UNSAFE, body=request))

    @operation
    def revoke(self, id: str) -> Op[None]:
        """DELETE /keys/{id}: the key answers 401 from its next request (repeating it is harmless)."""
        yield from self._call("DELETE", f"/keys/{segment(id)}", safe=SAFE)


class Surface(Part[C], Generic[C, H]):
    """The client's own methods and its namespaces, over an HTTP client of type H."""

    retry_policy: RetryPolicy
    _limits: m.WorkspaceInfoLimits | None

    def __init__(
        self,
        url: str,
        key: str,
        *,
        timeout: float | httpx.Timeout = 30.0,
        retry: RetryPolicy | bool | None = None,
        http_client: H | None = None,
    ) -> None:
        super().__init__(cast(C, self))
        self.url = checked_url(url, key)
        self._key = key
        self.retry_policy = retry_policy(retry)
        self._limits = None
        self._owned = http_client is None
        self._http: H = self._open_http(timeout) if http_client is None else http_client
        self.records = Records(self._client)
        self.views = Views(self._client)
        self.artifacts = Artifacts(self._client)
        self.catalog = Catalog(self._client)
        self.derivations = Derivations(self._client)
        self.runs = Runs(self._client)
        self.jobs = Jobs(self._client)
        self.keys = Keys(self._client)

    def _open_http(self, timeout: float | httpx.Timeout) -> H:
        """The client's own HTTP client, when the caller passed none."""
        raise NotImplementedError

    def _write_limits(self) -> Op[m.WorkspaceInfoLimits]:
        """The server's write limits, asked once per client (a server that does not say has the defaults)."""
        if self._limits is None:
            info = yield from self._call("GET", "/workspace", safe=SAFE)
            self._limits = cast(m.WorkspaceInfoLimits, info.get("limits", DEFAULT_LIMITS))
        return self._limits

    @operation
    def request(
        self, method: str, path: str, *, params: Mapping[str, Any] | None = None, body: Any = NO_BODY
    ) -> Op[Any]:
        """Any route, with the key, typed errors and, for GET, retries: for what the methods here
        do not cover (`engram.request("GET", "/collections")`)."""
        return (yield from self._call(method, path, safe=method.upper() == "GET", params=params, body=body))

    @operation
    def workspace(self) -> Op[m.WorkspaceInfo]:
        """GET /workspace: the key's workspace, its counts, the key itself and the server's write limits."""
        return (yield from self._call("GET", "/workspace", safe=SAFE))

    @paged
    def timeline(self, query: m.TimelineQuery) -> PageSpec[m.TimelinePageRecord, m.TimelinePage]:
        """GET /timeline, newest first, across pages."""
        return self._paged_read("/timeline", query, "before_seq", "records", "next_before_seq")

    @paged
    def history(self, query: m.HistoryQuery) -> PageSpec[m.HistoryPageVersion, m.HistoryPage]:
        """GET /document/history: every version of one keyed slot, newest first, across pages."""
        return self._paged_read("/document/history", query, "before_seq", "versions", "next_before_seq")

    @paged
    def entities(self, query: m.EntitiesQuery | None = None) -> PageSpec[m.EntitiesPageEntity, m.EntitiesPage]:
        """GET /entities: the workspace's entities in name order, across pages."""
        return self._paged_read("/entities", query or {}, "after", "entities", "next_after")

    @operation
    def document(self, query: m.DocumentQuery) -> Op[m.EngramDocument]:
        """GET /document: an entity's current beliefs and retractions (as of a moment with `as_of`)."""
        return (yield from self._call("GET", "/document", safe=SAFE, params=query))

    @operation
    def search(self, spec: m.SearchSpec) -> Op[m.SearchResponse]:
        """POST /search with a SearchSpec."""
        return (yield from self._call("POST", "/search", safe=SAFE, body=spec))

    @operation
    def answer(self, request: m.AnswerRequest) -> Op[m.AnswerResponse]:
        """POST /answer: a cited answer (retried only when it saves nothing)."""
        safe = UNSAFE if request.get("save") is True else SAFE
        return (yield from self._call("POST", "/answer", safe=safe, body=request))

    @operation
    def context(self, query: m.ContextQuery) -> Op[m.ContextResponse]:
        """GET /context: a prompt-ready context for an entity and task."""
        return (yield from self._call("GET", "/context", safe=SAFE, params=query))

    @operation
    def erase(
        self, request: m.EraseRequest, *, dry_run: bool = False, list_records: bool = False
    ) -> Op[m.EraseResponse]:
        """POST /erase: irreversible, so never retried. `dry_run` only counts what it would erase
        (and, with `list_records`, lists it); a dry run is retried."""
        query = {"dry_run": True, **({"list": True} if list_records else {})} if dry_run else None
        return (yield from self._call("POST", "/erase", safe=dry_run, params=query, body=request))

    @operation
    def tools(self) -> Op[m.ToolsResponse]:
        """GET /tools: the workspace's MCP tools with their schemas."""
        return (yield from self._call("GET", "/tools", safe=SAFE))

    @operation
    def promote(self, request: m.PromoteRequest) -> Op[m.PromoteResponse]:
        """POST /promote: activates a reviewed run's draft output (a repeat answers already_promoted)."""
        return (yield from self._call("POST", "/promote", safe=SAFE, body=request))

    @operation
    def consume(
        self,
        consumer: str,
        query: m.DeltaQuery,
        handler: Callable[[m.DeltaPage], Any],
        *,
        max_pages: int | None = None,
    ) -> Op[ConsumeResult]:
        """Replays a consumer's changes (GET /delta) page by page: `handler` gets each page (and is
        awaited when it returns an awaitable), and the cursor (POST /cursor) moves past the page
        only after the handler returned. A handler that raises leaves the cursor where it was, so
        the next run gets that page again: nothing is skipped, and nothing the handler finished is
        handed over twice (but for a crash between the two: make applying a page idempotent).
        Returns when the consumer has caught up, or after `max_pages`."""
        result = ConsumeResult()
        while max_pages is None or result.pages < max_pages:
            page: m.DeltaPage = yield from self._call(
                "GET", "/delta", safe=SAFE, params={**query, "consumer": consumer}
            )
            if not page["records"]:
                break
            yield Handle(handler, page)
            cursor: m.CursorRequest = {
                "consumer": consumer,
                "entity": query.get("entity"),
                "position": page["next_cursor"],
                "scope_hash": page["scope_hash"],
            }
            # Moving a cursor to the position it holds is a no-op, so the move is retried.
            yield from self._call("POST", "/cursor", safe=SAFE, body=cursor)
            result.pages += 1
            result.records += len(page["records"])
            result.position = page["next_cursor"]
        return result

    @operation
    def remember(
        self, entity: str, messages: list[ConversationMessage], *, collection: str = "messages"
    ) -> Op[WriteResult]:
        """Logs messages of a conversation with `entity` (the user) into the conversation starter's
        `messages` collection (or yours), where its extract_memories derivation reads them."""
        rows = message_rows(entity, messages, collection)
        return (yield from self.records._write(rows))

    @operation
    def recall(
        self, entity: str, query: str, *, limit: int | None = None, view: str = "recall"
    ) -> Op[m.ViewResponse]:
        """What memory holds about `entity` for a query: the conversation starter's `recall` view."""
        arguments = recall_arguments(entity, query, limit)
        return (yield from self._call("POST", f"/views/{segment(view)}/query", safe=SAFE, body=arguments))


@dataclass
class ConsumeResult:
    """What a `consume` replayed: pages, records, and the cursor's position after the last page
    applied (None when there was nothing new)."""

    pages: int = 0
    records: int = 0
    position: int | None = None
