"""The package's version: pyproject.toml reads it from here, the User-Agent header sends it."""

VERSION = "0.1.0"
