"""A write larger than one request may carry is sent as consecutive batches, each within the
server's row and body limits (GET /workspace `limits`). Each batch is atomic on the server; the
write as a whole is not, so a failure after the first batch says what was written."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .models import RecordRow, WorkspaceInfoLimits, WriteResponse, WriteResponseDuplicate, WriteResponseInserted

DEFAULT_LIMITS: WorkspaceInfoLimits = {"max_batch_records": 1000, "max_body_bytes": 16 * 1024 * 1024}
"""The server's defaults, for a server that does not publish its limits."""

ENVELOPE_BYTES = len('{"records":[]}')


@dataclass
class Batch:
    start: int
    """Index of the batch's first row in the caller's list."""
    rows: list[RecordRow]


def compact_json(value: Any) -> bytes:
    """`value` as the client sends it: compact JSON, UTF-8 (what batches are measured by)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def split_batches(rows: list[RecordRow], limits: WorkspaceInfoLimits) -> list[Batch]:
    """Consecutive batches in order; a row too large for any request goes alone (the server refuses it)."""
    batches: list[Batch] = []
    size = ENVELOPE_BYTES
    for index, row in enumerate(rows):
        row_size = len(compact_json(row)) + 1
        if (
            not batches
            or len(batches[-1].rows) >= limits["max_batch_records"]
            or size + row_size > limits["max_body_bytes"]
        ):
            batches.append(Batch(index, []))
            size = ENVELOPE_BYTES
        batches[-1].rows.append(row)
        size += row_size
    return batches


@dataclass
class WriteResult:
    """The merged answer of a write's batches; `job_ids` are the enrichment jobs the batches queued."""

    inserted: list[WriteResponseInserted] = field(default_factory=list)
    duplicates: list[WriteResponseDuplicate] = field(default_factory=list)
    job_ids: list[str] = field(default_factory=list)

    def merge(self, batch: Batch, answer: WriteResponse) -> None:
        """Adds one batch's answer, its indexes moved to the caller's list."""
        for inserted in answer["inserted"]:
            moved = inserted.copy()
            moved["index"] += batch.start
            self.inserted.append(moved)
        for duplicate in answer["duplicates"]:
            moved_duplicate = duplicate.copy()
            moved_duplicate["index"] += batch.start
            self.duplicates.append(moved_duplicate)
        if answer["job_id"] is not None:
            self.job_ids.append(answer["job_id"])
