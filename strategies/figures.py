"""A solve's figures: what its build worked out from the strategy for the app to read
(`strategies.models.FigureRow`, JSON by name), so that no request has to compute them.

* `STYLE`: the strategy's own style figures from each seat (`solver.evaluation.style`);
* `WIN_CHANCES`: a game played in rounds, each round's chance of winning the whole game
  (the Dudo match's table, `solver.runs.dudo_match`), without which its solve is incomplete.

Version 6 of the store kept the table of winning chances in a file beside it,
``<store stem>.<game>.json``; `import_side_files` takes such files in when a store is upgraded.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

log = logging.getLogger("strategies")

STYLE = "style"
WIN_CHANCES = "win_chances"
WORDS = {STYLE: "its style figures", WIN_CHANCES: "its table of winning chances"}
"""Each figure in the words of a message."""


def side_file(store: Path, game: str) -> Path:
    """Where version 6 wrote a solve's table of winning chances beside the store `store`."""
    return store.with_name(f"{store.stem}.{game}.json")


def import_side_files(conn: Any, store: Path) -> list[str]:
    """Store, as its `WIN_CHANCES` figure, each table of winning chances a version-6 store
    kept beside it whose solve is in it (on `conn`, an open transaction); the games taken
    in. A file of a solve that is gone, or one that cannot be read, is left out and logged."""
    taken = []
    games = [row[0] for row in conn.exec_driver_sql("SELECT DISTINCT game FROM solves")]
    for game in games:
        path = side_file(store, game)
        if not path.is_file():
            continue
        try:
            written = json.loads(path.read_text())
            solve_id = int(written["solve_id"])
            table = {str(k): float(v) for k, v in written["table"].items()}
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            log.warning("%s is not a table of winning chances (%s): left out", path, exc)
            continue
        owner = conn.exec_driver_sql("SELECT game FROM solves WHERE id = ?",
                                     (solve_id,)).fetchone()
        if owner is None or owner[0] != game or written.get("game", game) != game:
            log.warning("%s is the table of a solve of %s (%s) this store does not hold: left "
                        "out", path, game, solve_id)
            continue
        conn.exec_driver_sql("INSERT OR IGNORE INTO figures (solve_id, name, data) "
                             "VALUES (?, ?, ?)", (solve_id, WIN_CHANCES, json.dumps(table)))
        taken.append(game)
    return taken
