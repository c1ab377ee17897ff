"""The SQLite strategy store shared by the offline solver and the web app.

* `strategies.records`: what it hands out and takes in (a solve's row, an information set's
  strategy, a public node, a trace point), its errors and its default path;
* `strategies.models`: the tables; `strategies.schema`: a file opened, created, checked and
  upgraded in place; `strategies.sql`: the rows as SQL and JSON text;
* `strategies.store`: `StrategyStore`, with what its reads remember (`strategies.memo`) and
  the explorer's paged reads (`strategies.explore`);
* `strategies.tables`: a strategy too big for a row per information set, as quantised tables;
* `strategies.figures`: what a build works out from a solve for the app to read, by name.
"""

from strategies.models import SCHEMA_VERSION
from strategies.records import (
    ENV_VAR,
    InfosetStrategy,
    PublicNode,
    SolveInfo,
    StoreError,
    StoreMissingError,
    StoreSchemaError,
    TracePoint,
    default_store_path,
    split_key,
)
from strategies.store import StrategyStore

__all__ = [
    "ENV_VAR",
    "SCHEMA_VERSION",
    "InfosetStrategy",
    "PublicNode",
    "SolveInfo",
    "StoreError",
    "StoreMissingError",
    "StoreSchemaError",
    "StrategyStore",
    "TracePoint",
    "default_store_path",
    "split_key",
]
