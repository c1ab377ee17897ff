from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from solver.cards import cache


def test_digest_follows_code_not_prose(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text('"""Doc."""\n\nX = 1  # one\n\n\ndef f():\n    """Doc."""\n    return X\n')
    digest = cache.source_digest(source)
    source.write_text('"""Other doc."""\nX = 1\n\ndef f():\n    return X  # comment\n')
    assert cache.source_digest(source) == digest
    assert cache.source_digest(source, extra=(4, 13)) != digest
    source.write_text('"""Doc."""\nX = 2\n\ndef f():\n    return X\n')
    assert cache.source_digest(source) != digest


def test_save_and_load(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOLVER_CACHE", str(tmp_path / "c"))
    path = cache.cache_dir() / "sub" / "a.npy"
    cache.save_atomic(path, np.arange(5, dtype=np.uint16))
    assert [p.name for p in path.parent.iterdir()] == ["a.npy"]  # no temporary left
    loaded = cache.load(path, mmap=True)
    assert loaded is not None and loaded.dtype == np.uint16 and loaded.tolist() == [0, 1, 2, 3, 4]
    path.write_bytes(b"not an array")
    assert cache.load(path) is None
    assert cache.load(tmp_path / "missing.npy") is None
