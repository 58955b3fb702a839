"""The models cannot drift from the server: every model (generate_models.MODELS) is compared with
the running server's /openapi.json at every level: a field the server documents that the model
lacks fails, a field the model has that the server does not document fails, and so do a required
field the model makes optional (or the reverse) and a type that does not match."""

from __future__ import annotations

import types
import typing
from typing import Any, Literal, TypedDict, Union

import httpx
import pytest
from conftest import Server
from generate_models import MODELS, part_schema, variants

from engram import models

SCALARS: dict[str, Any] = {"string": str, "integer": int, "number": float, "boolean": bool, "null": type(None)}


def members(annotation: Any) -> list[Any]:
    """A union's members (a lone type is a union of one)."""
    if typing.get_origin(annotation) in (Union, types.UnionType):
        return list(typing.get_args(annotation))
    return [annotation]


def compare(schema: dict[str, Any], annotation: Any, where: str) -> list[str]:
    """Where `annotation` does not say what `schema` documents."""
    options = variants(schema)
    if options is not None:
        found = members(annotation)
        if len(found) != len(options):
            return [f"{where}: {len(options)} shapes documented, the model has {len(found)}"]
        return [problem for option, member in zip(options, found) for problem in compare(option, member, where)]
    if "enum" in schema or "const" in schema:
        documented = set(schema["enum"]) if "enum" in schema else {schema["const"]}
        modelled = {value for member in members(annotation) for value in typing.get_args(member)}
        return [] if documented == modelled else [f"{where}: values {sorted(map(str, documented))} documented, {sorted(map(str, modelled))} modelled"]
    kinds = schema.get("type")
    if isinstance(kinds, list):
        found = members(annotation)
        if ("null" in kinds) != (type(None) in found):
            return [f"{where}: null {'documented' if 'null' in kinds else 'not documented'}, the model says otherwise"]
        rest = [kind for kind in kinds if kind != "null"]
        others = [member for member in found if member is not type(None)]
        if len(rest) != len(others):
            return [f"{where}: types {rest} documented, the model has {others}"]
        return [problem for kind, member in zip(rest, others) for problem in compare({**schema, "type": kind}, member, where)]
    if "properties" in schema:
        return compare_object(schema, annotation, where)
    if kinds == "array":
        if typing.get_origin(annotation) is not list:
            return [f"{where}: an array documented, the model has {annotation}"]
        return compare(schema.get("items", {}), typing.get_args(annotation)[0], f"{where}[]")
    if kinds == "object":
        return [] if typing.get_origin(annotation) is dict else [f"{where}: an object documented, the model has {annotation}"]
    if kinds in SCALARS:
        return [] if annotation is SCALARS[kinds] else [f"{where}: {kinds} documented, the model has {annotation}"]
    return [] if annotation is Any else [f"{where}: any value documented, the model has {annotation}"]


def compare_object(schema: dict[str, Any], model: Any, where: str) -> list[str]:
    if not typing.is_typeddict(model):
        return [f"{where}: an object with fields documented, the model has {model}"]
    hints = typing.get_type_hints(model)
    documented, modelled = set(schema["properties"]), set(hints)
    problems = [f"{where}.{key}: documented by the server, missing from {model.__name__}" for key in sorted(documented - modelled)]
    problems += [f"{where}.{key}: in {model.__name__}, not documented by the server" for key in sorted(modelled - documented)]
    required = set(schema.get("required", []))
    problems += [
        f"{where}.{key}: {'required' if key in required else 'optional'} on the server, not in {model.__name__}"
        for key in sorted(documented & modelled)
        if (key in required) != (key in model.__required_keys__)
    ]
    for key in sorted(documented & modelled):
        problems += compare(schema["properties"][key], hints[key], f"{where}.{key}")
    return problems


@pytest.fixture(scope="module")
def document(server: Server) -> dict[str, Any]:
    return httpx.get(f"{server.url}/openapi.json").json()  # type: ignore[no-any-return]


@pytest.mark.parametrize(("name", "method", "path", "part"), MODELS, ids=[model[0] for model in MODELS])
def test_every_model_says_what_the_server_documents(document: dict[str, Any], name: str, method: str, path: str, part: str) -> None:
    problems = compare(part_schema(document, method, path, part), getattr(models, name), name)
    assert problems == [], "the model drifted from /openapi.json (run tools/generate_models.py):\n" + "\n".join(problems)


def test_the_comparison_catches_a_missing_an_undocumented_and_a_mistyped_field(document: dict[str, Any]) -> None:
    schema = part_schema(document, "get", "/workspace", "response")
    limits = schema["properties"]["limits"]

    Lacking = TypedDict("Lacking", {"max_batch_records": int})
    assert compare(limits, Lacking, "limits") == ["limits.max_body_bytes: documented by the server, missing from Lacking"]
    Extra = TypedDict("Extra", {"max_batch_records": int, "max_body_bytes": int, "max_rows": int})
    assert compare(limits, Extra, "limits") == ["limits.max_rows: in Extra, not documented by the server"]
    Mistyped = TypedDict("Mistyped", {"max_batch_records": str, "max_body_bytes": int})
    assert compare(limits, Mistyped, "limits") == [f"limits.max_batch_records: integer documented, the model has {str}"]
    Optional = TypedDict("Optional", {"max_batch_records": int, "max_body_bytes": int}, total=False)
    assert len(compare(limits, Optional, "limits")) == 2
    assert compare({"enum": ["a", "b"]}, Literal["a"], "x") == ["x: values ['a', 'b'] documented, ['a'] modelled"]
