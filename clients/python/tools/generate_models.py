"""Writes src/engram/models.py: a TypedDict for every request and response body the client sends
or reads, generated from the server's own /openapi.json, so the models say what the server
documents and nothing else. tests/test_contract.py compares the models with a running server's
document field by field; rerun this after a contract change:

    python3 tools/generate_models.py http://127.0.0.1:8080/openapi.json   # or a saved file
"""

from __future__ import annotations

import json
import keyword
import re
import sys
import urllib.request
from pathlib import Path
from typing import Any

TARGET = Path(__file__).resolve().parent.parent / "src" / "engram" / "models.py"

# (model, method, path, part): part is "response", "body", "body.<property>[]" (one item of an
# array property of the body) or "query" (the query parameters, less those the client pages by).
MODELS: list[tuple[str, str, str, str]] = [
    ("WorkspaceInfo", "get", "/workspace", "response"),
    ("RecordRow", "post", "/records", "body.records[]"),
    ("WriteResponse", "post", "/records", "response"),
    ("RecordsQuery", "get", "/records", "query"),
    ("RecordsPage", "get", "/records", "response"),
    ("StoredRecord", "get", "/records/{id}", "response"),
    ("TimelineQuery", "get", "/timeline", "query"),
    ("TimelinePage", "get", "/timeline", "response"),
    ("DocumentQuery", "get", "/document", "query"),
    ("EngramDocument", "get", "/document", "response"),
    ("HistoryQuery", "get", "/document/history", "query"),
    ("HistoryPage", "get", "/document/history", "response"),
    ("EntitiesQuery", "get", "/entities", "query"),
    ("EntitiesPage", "get", "/entities", "response"),
    ("DeltaQuery", "get", "/delta", "query"),
    ("DeltaPage", "get", "/delta", "response"),
    ("CursorRequest", "post", "/cursor", "body"),
    ("CursorResponse", "post", "/cursor", "response"),
    ("SearchSpec", "post", "/search", "body"),
    ("SearchResponse", "post", "/search", "response"),
    ("ViewList", "get", "/views", "response"),
    ("ViewResponse", "post", "/views/{name}/query", "response"),
    ("RenderResponse", "post", "/artifacts/{name}/render", "response"),
    ("AnswerRequest", "post", "/answer", "body"),
    ("AnswerResponse", "post", "/answer", "response"),
    ("ContextQuery", "get", "/context", "query"),
    ("ContextResponse", "get", "/context", "response"),
    ("EraseRequest", "post", "/erase", "body"),
    ("EraseResponse", "post", "/erase", "response"),
    ("ToolsResponse", "get", "/tools", "response"),
    ("CatalogInfo", "get", "/catalog", "response"),
    ("PublishRequest", "post", "/catalog", "body"),
    ("PublishResponse", "post", "/catalog", "response"),
    ("RunQueued", "post", "/processors/{name}/run", "response"),
    ("RunsQuery", "get", "/runs", "query"),
    ("RunsPage", "get", "/runs", "response"),
    ("Run", "get", "/runs/{id}", "response"),
    ("JobsQuery", "get", "/jobs", "query"),
    ("JobsPage", "get", "/jobs", "response"),
    ("Job", "get", "/jobs/{id}", "response"),
    ("KeyList", "get", "/keys", "response"),
    ("KeyRequest", "post", "/keys", "body"),
    ("CreatedKey", "post", "/keys", "response"),
    ("PromoteRequest", "post", "/promote", "body"),
    ("PromoteResponse", "post", "/promote", "response"),
]

# Query parameters the client sets itself: the page token and the consumer's name.
CLIENT_PARAMETERS = {"before_seq", "before", "after", "consumer", "dry_run", "diff", "list"}

SCALARS = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "None"}


def operation(document: dict[str, Any], method: str, path: str) -> dict[str, Any]:
    return document["paths"][path][method]  # type: ignore[no-any-return]


def part_schema(document: dict[str, Any], method: str, path: str, part: str) -> dict[str, Any]:
    """The JSON schema a model describes (query parameters as an object's properties)."""
    op = operation(document, method, path)
    if part == "response":
        status = next(code for code in op["responses"] if code.startswith("2"))
        return op["responses"][status]["content"]["application/json"]["schema"]  # type: ignore[no-any-return]
    if part == "query":
        parameters = [p for p in op.get("parameters", []) if p["in"] == "query"]
        parameters = [p for p in parameters if p["name"] not in CLIENT_PARAMETERS]
        return {
            "type": "object",
            "properties": {p["name"]: p["schema"] for p in parameters},
            "required": [p["name"] for p in parameters if p.get("required")],
        }
    body: dict[str, Any] = op["requestBody"]["content"]["application/json"]["schema"]
    if part == "body":
        return body
    match = re.fullmatch(r"body\.(\w+)\[\]", part)
    assert match, part
    return body["properties"][match.group(1)]["items"]  # type: ignore[no-any-return]


def singular(name: str) -> str:
    if name.endswith("ies"):
        return name[:-3] + "y"
    if name.endswith("s") and not name.endswith("ss"):
        return name[:-1]
    return name


def camel(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[^A-Za-z0-9]+", name) if part)


def is_object(schema: dict[str, Any]) -> bool:
    return "properties" in schema


def variants(schema: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The shapes of a union; an object's own anyOf only constrains which of its fields it needs."""
    return None if is_object(schema) else schema.get("anyOf") or schema.get("oneOf")


class Writer:
    """Emits classes in dependency order (a nested model before the model that names it)."""

    def __init__(self) -> None:
        self.classes: list[str] = []
        self.names: set[str] = set()
        self.shapes: dict[str, str] = {}

    def annotation(self, schema: dict[str, Any], name: str) -> str:
        options = variants(schema)
        if options is not None:
            return " | ".join(
                self.annotation(option, f"{name}{index + 1}") for index, option in enumerate(options)
            )
        if "const" in schema:
            return f"Literal[{schema['const']!r}]"
        if "enum" in schema:
            return "Literal[" + ", ".join(repr(value) for value in schema["enum"]) + "]"
        kinds = schema.get("type")
        if isinstance(kinds, list):
            return " | ".join(self.annotation({**schema, "type": kind}, name) for kind in kinds)
        if kinds == "array":
            return f"list[{self.annotation(schema.get('items', {}), singular(name))}]"
        if is_object(schema):
            return self.model(schema, name)
        if kinds == "object":
            extra = schema.get("additionalProperties", True)
            value = "Any" if extra is True or extra == {} else self.annotation(extra, f"{name}Value")
            return f"dict[str, {value}]"
        if kinds in SCALARS:
            return SCALARS[kinds]
        return "Any"

    def model(self, schema: dict[str, Any], name: str, doc: str | None = None) -> str:
        assert name not in self.names, f"two models named {name}"
        self.names.add(name)
        # A shape documented twice (a view's hits are search hits) is one model under two names.
        shape = json.dumps(schema, sort_keys=True)
        if shape in self.shapes:
            same = self.shapes[shape]
            if doc is not None:
                self.classes.append(f'{name} = {same}\n"""{doc}"""')
                return name
            return same
        self.shapes[shape] = name
        options = variants(schema)
        if options is not None:
            # A body of several shapes: an alias of their union, each shape a model of its own.
            union = self.annotation(schema, name)
            self.classes.append(f'{name} = {union}\n"""{doc}"""' if doc else f"{name} = {union}")
            return name
        properties: dict[str, Any] = schema["properties"]
        required = set(schema.get("required", []))
        fields = {key: self.annotation(value, name + camel(key)) for key, value in properties.items()}
        self.classes.append(render_class(name, fields, required, doc or schema.get("description")))
        return name


def identifier(key: str) -> bool:
    return re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key) is not None and not keyword.iskeyword(key)


def render_class(name: str, fields: dict[str, str], required: set[str], doc: str | None) -> str:
    """A TypedDict; optional fields through a total=False part (Python 3.10 has no NotRequired).
    Keys that are not identifiers (`from`, dotted names) need TypedDict's functional form."""
    must = {key: value for key, value in fields.items() if key in required}
    may = {key: value for key, value in fields.items() if key not in required}
    if all(identifier(key) for key in fields):
        if must and may:
            base = f"_{name}Required"
            return (
                f"class {base}(TypedDict):\n{body(must, None)}\n\n\n"
                f"class {name}({base}, total=False):\n{body(may, doc)}"
            )
        total = "" if must or not may else ", total=False"
        return f"class {name}(TypedDict{total}):\n{body(must or may, doc)}"
    parts = [(f"_{name}Required", must, ""), (f"_{name}Optional", may, ", total=False")]
    parts = [part for part in parts if part[1]]
    lines = [f"{part}{' = '}TypedDict({part!r}, {{{entries(keys)}}}{total})" for part, keys, total in parts]
    lines.append(f"class {name}({', '.join(part for part, _, _ in parts)}):\n{body({}, doc)}")
    return "\n\n\n".join(lines)


def entries(fields: dict[str, str]) -> str:
    return ", ".join(f"{key!r}: {value}" for key, value in fields.items())


def body(fields: dict[str, str], doc: str | None) -> str:
    lines = [f'    """{doc}"""'] if doc else []
    lines += [f"    {key}: {value}" for key, value in fields.items()]
    return "\n".join(lines) or "    pass"


def generate(document: dict[str, Any]) -> str:
    writer = Writer()
    for name, method, path, part in MODELS:
        where = f"{method.upper()} {path}" + ("" if part == "response" else f" ({part})")
        writer.model(part_schema(document, method, path, part), name, f"{where}.")
    header = (
        '"""The request and response bodies of the routes the client covers, generated from the\n'
        "server's /openapi.json by tools/generate_models.py. Do not edit: rerun the generator.\"\"\"\n\n"
        "from __future__ import annotations\n\n"
        "from typing import Any, Literal, TypedDict\n\n"
        "__all__ = [\n" + "".join(f"    {name!r},\n" for name, *_ in MODELS) + "]\n"
    )
    return header + "\n\n" + "\n\n\n".join(writer.classes) + "\n"


def load(source: str) -> dict[str, Any]:
    if source.startswith(("http://", "https://")):
        with urllib.request.urlopen(source) as response:  # noqa: S310 (the operator's own server)
            return json.load(response)  # type: ignore[no-any-return]
    return json.loads(Path(source).read_text())  # type: ignore[no-any-return]


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: generate_models.py <openapi.json URL or file>")
    TARGET.write_text(generate(load(sys.argv[1])))
    print(f"wrote {TARGET}")
