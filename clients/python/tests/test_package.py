"""The package as a user gets it: a wheel built with the standard build backend, installed into a
fresh virtual environment, running the README's quick starts against the test session's server;
and the package and those quick starts pass mypy --strict."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import REPOSITORY, Server

PACKAGE = Path(__file__).resolve().parents[1]


def python_blocks(readme: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", readme.read_text(), re.S)


QUICK_STARTS = {
    "README.md": python_blocks(REPOSITORY / "README.md"),
    "clients/python/README.md": python_blocks(PACKAGE / "README.md"),
}


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A fresh virtual environment with the built wheel installed (httpx from the system's packages)."""
    root = tmp_path_factory.mktemp("wheel")
    source = root / "source"
    # A copy, so the build's own files (build/, *.egg-info) never land in the repository.
    shutil.copytree(PACKAGE, source, ignore=shutil.ignore_patterns("tests", "build", "*.egg-info", "__pycache__"))
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "--no-index", "-w", str(root / "dist"), str(source)],
        capture_output=True, text=True,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    [wheel] = (root / "dist").glob("engram_client-*.whl")
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(root / "venv")], check=True)
    python = root / "venv" / "bin" / "python"
    installed = subprocess.run([str(python), "-m", "pip", "install", "--no-index", "--no-deps", str(wheel)], capture_output=True, text=True)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    yield python


def test_the_wheel_installs_with_its_types_and_imports_from_the_environment(venv: Path) -> None:
    probe = "import engram, pathlib; print(engram.__file__); print((pathlib.Path(engram.__file__).parent / 'py.typed').exists())"
    answer = subprocess.run([str(venv), "-c", probe], capture_output=True, text=True, cwd=venv.parent, check=True)
    location, typed = answer.stdout.split()
    assert location.startswith(str(venv.parent.parent)), location
    assert typed == "True"


@pytest.mark.parametrize("readme", list(QUICK_STARTS))
def test_the_readmes_quick_starts_run_against_a_server(venv: Path, server: Server, readme: str, tmp_path: Path) -> None:
    assert QUICK_STARTS[readme], f"{readme} has no python block"
    env = {"PATH": os.environ.get("PATH", ""), "ENGRAM_API_URL": server.url, "ENGRAM_API_KEY": server.key}
    for index, block in enumerate(QUICK_STARTS[readme]):
        script = tmp_path / f"quick_start_{index}.py"
        script.write_text(block)
        ran = subprocess.run([str(venv), str(script)], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
        assert ran.returncode == 0, f"{readme} block {index}:\n{ran.stdout}{ran.stderr}"
        assert "Refund requested for a duplicate charge" in ran.stdout, ran.stdout


def test_the_package_and_the_quick_starts_pass_mypy_strict(tmp_path: Path) -> None:
    scripts = []
    for readme, blocks in QUICK_STARTS.items():
        for index, block in enumerate(blocks):
            scripts.append(tmp_path / f"{readme.replace('/', '_')}_{index}.py")
            scripts[-1].write_text(block)
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", "src/engram", *map(str, scripts)], capture_output=True, text=True, cwd=PACKAGE
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
