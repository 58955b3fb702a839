"""Engram's Python client: `Engram` (blocking) and `AsyncEngram` (asyncio), one workspace key
each, over httpx. See the package README and docs/clients.md."""

from . import models
from ._async import AsyncEngram, AsyncPages
from ._batches import WriteResult
from ._catalog import read_catalog_directory
from ._conversation import ConversationMessage
from ._errors import EngramError, PartialWriteError
from ._steps import RetryPolicy
from ._surface import ConsumeResult
from ._sync import Engram, Pages
from ._version import VERSION

__all__ = [
    "AsyncEngram",
    "AsyncPages",
    "ConsumeResult",
    "ConversationMessage",
    "Engram",
    "EngramError",
    "Pages",
    "PartialWriteError",
    "RetryPolicy",
    "WriteResult",
    "models",
    "read_catalog_directory",
]
__version__ = VERSION
