"""The test session's Engram: a real `engram serve` on embedded storage (PGlite) in a directory of
its own, with the demo workspace (the example package published) and an operator token for
fresh workspaces. Its batch limit is small, so a few hundred rows cross many batches."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import threading
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from engram import Engram

REPOSITORY = Path(__file__).resolve().parents[3]
ENGRAM_BIN = REPOSITORY / "bin" / "engram.js"
EXAMPLE_CATALOG = REPOSITORY / "examples" / "catalog"
ADMIN_TOKEN = "python-client-tests-" + uuid.uuid4().hex
BATCH = 40


@dataclass
class Server:
    url: str
    key: str
    """The demo workspace's admin key."""


def node() -> str:
    found = shutil.which("node")
    if found is None:
        raise RuntimeError("the tests start `engram serve` with Node.js, which is not on PATH")
    return found


def run_engram(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Runs an `engram` command that needs no storage (catalog init, say)."""
    return subprocess.run([node(), str(ENGRAM_BIN), *args], cwd=cwd, capture_output=True, text=True, check=True)


@pytest.fixture(scope="session")
def server() -> Iterator[Server]:
    with tempfile.TemporaryDirectory(prefix="engram-python-") as directory:
        env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": os.environ.get("HOME", directory),
            "DATA_DIR": str(Path(directory) / "data"),
            "LOG_LEVEL": "info",
            "MAX_BATCH_RECORDS": str(BATCH),
            "ADMIN_TOKEN": ADMIN_TOKEN,
        }
        child = subprocess.Popen(
            [node(), str(ENGRAM_BIN), "serve", "--port", "0", "--demo"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert child.stderr is not None
        seen = ""
        url = key = None
        for line in child.stderr:
            seen += line
            key = key or next(iter(re.findall(r"egk_[A-Za-z0-9_-]{43}", line)), None)
            match = re.search(r"listening on (http://[^\s\"]+)", line)
            if match:
                url = match.group(1)
                break
        if url is None or key is None:
            child.kill()
            raise RuntimeError(f"engram serve did not start:\n{seen}")
        # The log goes on: keep reading it so the server never blocks on a full pipe.
        threading.Thread(target=lambda: [None for _ in child.stderr or []], daemon=True).start()
        try:
            yield Server(url, key)
        finally:
            child.terminate()
            child.wait(timeout=30)


@pytest.fixture(scope="session")
def new_workspace(server: Server) -> Callable[[str], str]:
    """Creates a workspace through the operator API; returns its admin key."""

    def create(prefix: str) -> str:
        answer = httpx.post(
            f"{server.url}/admin/workspaces",
            json={"name": f"{prefix}-{uuid.uuid4().hex[:8]}"},
            headers={"authorization": f"Bearer {ADMIN_TOKEN}"},
        )
        answer.raise_for_status()
        return str(answer.json()["api_key"])

    return create


@pytest.fixture(scope="session")
def support_workspace(server: Server, new_workspace: Callable[[str], str]) -> Callable[[str], str]:
    """Creates a workspace with the example package (examples/catalog) published; returns its key."""

    def create(prefix: str) -> str:
        key = new_workspace(prefix)
        published = Engram(server.url, key).catalog.publish_directory(EXAMPLE_CATALOG, "support@1.0.0")
        assert published.get("loaded") is True
        return key

    return create
