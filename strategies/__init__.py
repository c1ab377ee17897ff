"""The SQLite strategy store shared by the offline solver and the web app."""

from strategies.models import SCHEMA_VERSION
from strategies.store import (
    ENV_VAR,
    InfosetStrategy,
    PublicNode,
    SolveInfo,
    StoreError,
    StoreMissingError,
    StoreSchemaError,
    StrategyStore,
    TracePoint,
    default_store_path,
    split_key,
)

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
