"""Paging, batching, replay, derivations and catalogs against a real `engram serve` whose batch
limit is small (conftest.BATCH), in a workspace of this file's own with the example package
published through the client. Reads name customer_events: the example package's trigger derives
customer profiles into the same entities as the writes go on."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from conftest import BATCH, EXAMPLE_CATALOG, Server

from engram import Engram, PartialWriteError, models

def event(entity: str, i: int, dedupe: bool = True) -> models.RecordRow:
    row: models.RecordRow = {"collection": "customer_events", "entity": entity, "type": "note", "text": f"note {i}"}
    if dedupe:
        row["dedupe_key"] = f"{entity}-{i}"
    return row


@pytest.fixture(scope="module")
def engram(server: Server, new_workspace: Callable[[str], str]) -> Engram:
    client = Engram(server.url, new_workspace("paging"))
    dry = client.catalog.publish_directory(EXAMPLE_CATALOG, "support@1.0.0", dry_run=True)
    assert "loaded" not in dry
    published = client.catalog.publish_directory(EXAMPLE_CATALOG, "support@1.0.0")
    assert published.get("loaded") is True
    assert client.catalog.get()["catalog_hash"] == published.get("catalog_hash")
    return client


def test_splits_a_write_at_the_batch_limit_and_keeps_dedupe_keys_across_batches(engram: Engram) -> None:
    assert engram.workspace()["limits"]["max_batch_records"] == BATCH
    rows = [event("paged", i) for i in range(130)]
    first = engram.records.write(rows)
    assert [row["index"] for row in first.inserted] == list(range(130))
    assert first.job_ids
    # The same rows again: every one a duplicate of its first write, at its own index.
    again = engram.records.write(rows)
    assert again.inserted == []
    assert [(row["index"], row["id"]) for row in again.duplicates] == [(row["index"], row["id"]) for row in first.inserted]


def test_says_which_rows_were_written_when_a_later_batch_fails(engram: Engram) -> None:
    rows = [event("partial", i) for i in range(BATCH + 5)]
    rows[BATCH + 2] = {**event("partial", BATCH + 2), "collection": "no_such_collection"}
    with pytest.raises(PartialWriteError) as error:
        engram.records.write(rows)
    assert error.value.first_unwritten == BATCH
    assert len(error.value.written.inserted) == BATCH
    assert getattr(error.value.__cause__, "status", None) == 422
    stored = engram.timeline({"entity": "partial", "collections": ["customer_events"], "limit": 100}).to_list()
    assert len(stored) == BATCH


def test_lists_the_workspaces_records_across_entities_by_the_opaque_cursor(engram: Engram) -> None:
    listed = engram.records.list({"collection": "customer_events", "type": "note", "limit": 30}).to_list()
    timelines = [
        row
        for entity in ("paged", "partial")
        for row in engram.timeline({"entity": entity, "collections": ["customer_events"], "limit": 100})
    ]
    assert sorted(row["id"] for row in listed) == sorted(row["id"] for row in timelines)
    seqs = [row["seq"] for row in listed]
    assert seqs == sorted(seqs, reverse=True)
    assert {row["entity"] for row in listed} == {"paged", "partial"}


def test_iterates_a_timeline_across_pages_newest_first_each_record_once(engram: Engram) -> None:
    pages = list(engram.timeline({"entity": "paged", "collections": ["customer_events"], "limit": 25}).pages())
    assert len(pages) == 6
    assert [row["text"] for page in pages for row in page["records"]] == [f"note {129 - i}" for i in range(130)]
    assert len(engram.timeline({"entity": "paged", "limit": 7}).to_list(10)) == 10


def test_iterates_a_keyed_slots_history_and_the_entity_list_across_pages(engram: Engram) -> None:
    versions: list[models.RecordRow] = [
        {"collection": "customer_facts", "entity": "slot-owner", "type": "plan", "key": "plan", "text": f"plan v{i}", "content": {"value": f"v{i}"}}
        for i in range(12)
    ]
    for row in versions:
        engram.records.write([row])
    history = engram.history({"entity": "slot-owner", "collection": "customer_facts", "key": "plan", "limit": 5}).to_list()
    assert [version["content"] for version in history] == [row.get("content") for row in reversed(versions)]
    assert [entity["entity"] for entity in engram.entities({"limit": 1})] == ["paged", "partial", "slot-owner"]


def test_replays_changes_moving_the_cursor_only_after_the_handler_returns(engram: Engram) -> None:
    engram.records.write([event("replayed", i) for i in range(50)])
    applied: list[str] = []
    calls = 0

    def crashing(page: models.DeltaPage) -> None:
        nonlocal calls
        calls += 1
        if calls == 3:
            raise RuntimeError("the consumer's store is down")
        applied.extend(row["id"] for row in page["records"])

    query: models.DeltaQuery = {"entity": "replayed", "collection": "customer_events", "limit": 10}
    with pytest.raises(RuntimeError, match="store is down"):
        engram.consume("mirror", query, crashing)
    assert len(applied) == 20

    done = engram.consume("mirror", query, crashing)
    assert (done.pages, done.records) == (3, 30)
    assert len(applied) == len(set(applied)) == 50
    timeline = engram.timeline({"entity": "replayed", "collections": ["customer_events"], "limit": 100})
    assert applied == [row["id"] for row in timeline][::-1]

    # Caught up: nothing more, until something new is written.
    assert engram.consume("mirror", query, crashing).pages == 0
    engram.records.write([event("replayed", 50)])
    assert (engram.consume("mirror", query, crashing).records, len(applied)) == (1, 51)


def test_queues_a_derivation_waits_for_its_job_and_reads_its_run(engram: Engram) -> None:
    engram.records.write([{"collection": "customer_events", "entity": "derived", "type": "ticket", "text": "Asked for an invoice copy"}])
    queued = engram.derivations.run("customer_profile", "derived")
    job = engram.jobs.wait(queued["job_id"], interval=0.1)
    assert job["state"] == "succeeded"
    assert queued["job_id"] in [listed["id"] for listed in engram.jobs.list({"limit": 5})]
    # The write's own trigger runs the same derivation too: the job's run is one of the entity's
    # runs, skipped (no successful_run_id) when the trigger's run already read the write.
    ours = next(run for run in engram.runs.list({"entity": "derived"}) if run["job_id"] == job["id"])
    assert ours["status"] == ("skipped" if job["successful_run_id"] is None else "succeeded")
    run: Any = engram.runs.get(ours["id"])
    assert (run["id"], run["entity"], run["job_id"]) == (ours["id"], "derived", job["id"])
