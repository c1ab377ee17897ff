"""The play database's constant statements, run on SQLite's own cursor.

An action in a small game is five or six short statements and a commit, and SQLAlchemy's
execution of a statement (its cache lookup, execution context, parameter and result objects)
cost about twice what SQLite took to run it: more than a third of the request's CPU. A
`Statement` is a Core statement built once; on SQLite it is compiled once, with SQLAlchemy's own
compiler and its type conversions for the parameters and the result (dates and JSON stored
exactly as SQLAlchemy stores them), then run straight on the session's DBAPI connection, in the
session's transaction. On any other database it goes through SQLAlchemy as before. SQLite's
errors are raised as SQLAlchemy's (`IntegrityError`, `OperationalError`), which the callers
handle.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Dialect, exc
from sqlalchemy.orm import Session
from sqlalchemy.sql.dml import Insert, ValuesBase
from sqlalchemy.sql.expression import Executable

Processor = Callable[[Any], Any] | None


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a statement gave: its rows (tuples, converted), the rows it changed and the new
    row's id of an insert."""

    rows: list[tuple[Any, ...]]
    rowcount: int
    inserted_id: int | None = None

    def first(self) -> tuple[Any, ...] | None:
        return self.rows[0] if self.rows else None

    def one(self) -> tuple[Any, ...]:
        if len(self.rows) != 1:
            raise exc.NoResultFound(f"expected one row, got {len(self.rows)}")
        return self.rows[0]


@dataclass(frozen=True, slots=True)
class _Compiled:
    sql: str
    names: tuple[str, ...]
    """The parameters in the order of the ``?`` marks."""
    binds: tuple[Processor, ...]
    defaults: Mapping[str, Any]
    """Scalar column defaults of an insert, for the columns the parameters leave out, and the
    values of the literals the statement holds."""
    results: tuple[Processor, ...]

    def arguments(self, params: Mapping[str, Any]) -> tuple[Any, ...]:
        values = []
        for name, bind in zip(self.names, self.binds, strict=True):
            value = params[name] if name in params else self.defaults[name]
            values.append(value if bind is None else bind(value))
        return tuple(values)

    def convert(self, row: Sequence[Any]) -> tuple[Any, ...]:
        return tuple(value if process is None else process(value)
                     for value, process in zip(row, self.results, strict=True))


class Statement:
    """A constant Core statement; see the module's docstring. Thread-safe (compiling twice
    in a race is harmless)."""

    def __init__(self, statement: Executable) -> None:
        self.statement = statement
        self._compiled: dict[frozenset[str], _Compiled] = {}

    def run(self, session: Session, params: Mapping[str, Any]) -> Outcome:
        connection = session.connection()
        if connection.dialect.name != "sqlite":
            result = connection.execute(self.statement, dict(params))
            rows = [tuple(row) for row in result] if result.returns_rows else []
            inserted = (result.inserted_primary_key or (None,))[0] \
                if isinstance(self.statement, Insert) else None
            return Outcome(rows, result.rowcount, inserted)
        compiled = self._compile(connection.dialect, frozenset(params))
        driver = connection.connection.driver_connection
        assert isinstance(driver, sqlite3.Connection)
        arguments = compiled.arguments(params)
        try:
            cursor = driver.execute(compiled.sql, arguments)
            rows = [compiled.convert(row) for row in cursor.fetchall()] \
                if compiled.results else []
        except sqlite3.Error as error:
            raise exc.DBAPIError.instance(compiled.sql, arguments, error,
                                          sqlite3.Error) from error
        return Outcome(rows, cursor.rowcount, cursor.lastrowid)

    def run_many(self, session: Session, params: Sequence[Mapping[str, Any]]) -> None:
        """The statement (an insert) once for each set of parameters, all with the same
        names."""
        if not params:
            return
        connection = session.connection()
        if connection.dialect.name != "sqlite":
            connection.execute(self.statement, [dict(p) for p in params])
            return
        compiled = self._compile(connection.dialect, frozenset(params[0]))
        driver = connection.connection.driver_connection
        assert isinstance(driver, sqlite3.Connection)
        arguments = [compiled.arguments(p) for p in params]
        try:
            driver.executemany(compiled.sql, arguments)
        except sqlite3.Error as error:
            raise exc.DBAPIError.instance(compiled.sql, arguments, error,
                                          sqlite3.Error) from error

    def _compile(self, dialect: Dialect, keys: frozenset[str]) -> _Compiled:
        found = self._compiled.get(keys)
        if found is None:
            found = self._compiled[keys] = _compile(self.statement, dialect, keys)
        return found


def _compile(statement: Executable, dialect: Dialect, keys: frozenset[str]) -> _Compiled:
    is_values = isinstance(statement, ValuesBase)
    compiled = statement.compile(dialect=dialect,  # type: ignore[attr-defined]
                                 column_keys=sorted(keys) if is_values else None)
    names = tuple(compiled.positiontup or ())
    defaults: dict[str, Any] = {}
    if isinstance(statement, Insert):
        for column in statement.table.columns:
            default = column.default
            if column.key not in keys and default is not None and default.is_scalar:
                defaults[column.key] = default.arg  # type: ignore[attr-defined]
    for name in names:  # a literal in the statement (a LIMIT) is a parameter with a value
        bind = compiled.binds[name]
        if name not in keys and name not in defaults and not bind.required:
            defaults[name] = bind.effective_value
    missing = [name for name in names if name not in keys and name not in defaults]
    if missing:
        raise ValueError(f"statement parameters {missing} are neither given nor scalar "
                         "column defaults")
    binds = tuple(compiled.binds[name].type.dialect_impl(dialect).bind_processor(dialect)
                  for name in names)
    results = tuple(column.type.dialect_impl(dialect).result_processor(dialect, None)
                    for column in statement.exported_columns)  # type: ignore[attr-defined]
    return _Compiled(compiled.string, names, binds, defaults, results)
