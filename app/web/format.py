"""Formatting for the pages: numbers, probabilities and the pieces of a game's labels.

Nothing here knows a game: labels are drawn from what the game says they are made of.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from app.schemas import ActionProbability, PieceOut
from solver.games import Card, Die, get_game

DICE = "⚀⚁⚂⚃⚄⚅"
SUIT_SYMBOLS = {"s": "♠", "h": "♥", "d": "♦", "c": "♣"}
SUIT_NAMES = {"s": "spades", "h": "hearts", "d": "diamonds", "c": "clubs"}
RANK_NAMES = {"J": "Jack", "Q": "Queen", "K": "King", "A": "Ace", "T": "Ten"}
PIECE_WORDS = {"cards": "card", "dice": "die", "moves": "move"}


def die_glyph(face: int | None) -> str:
    return DICE[face - 1] if face is not None and 1 <= face <= 6 else str(face)


def piece_view(piece: PieceOut) -> dict[str, Any]:
    """What the piece macro draws: a card's corner and name, a die's glyph, a move's word."""
    if piece.kind == "card":
        rank, suit = piece.rank or "", piece.suit or ""
        name = RANK_NAMES.get(rank, rank) + (f" of {SUIT_NAMES[suit]}" if suit else "")
        return {"kind": "card", "rank": rank, "suit": SUIT_SYMBOLS.get(suit, ""),
                "red": suit in ("h", "d"), "name": name}
    if piece.kind == "die":
        return {"kind": "die", "face": piece.face, "glyph": die_glyph(piece.face),
                "name": f"die showing {piece.face}"}
    return {"kind": "move", "name": piece.text}


def label_parts(game: str, label: str) -> list[dict[str, Any]]:
    """An action or chance label as text and pieces, as the game draws it."""
    parts: list[dict[str, Any]] = []
    for part in get_game(game).label_parts(label):
        if isinstance(part, Card):
            parts.append(piece_view(PieceOut(kind="card", text=str(part), rank=part.rank,
                                             suit=part.suit or None)))
        elif isinstance(part, Die):
            parts.append(piece_view(PieceOut(kind="die", text=str(part), face=part.face)))
        elif isinstance(part, str):
            parts.append({"kind": "text", "name": part})
        else:
            parts.append({"kind": "move", "name": str(part)})
    return parts


def key_words(game: str, key: str) -> dict[str, Any]:
    """An information set's key (``Qs|rc|Kh|cr``) as the game says it: what the player holds
    as pieces, and the public history in words."""
    private, sep, public = key.partition("|")
    if not sep:
        private, public = "", key
    return {"private": label_parts(game, private) if private else [],
            "history": get_game(game).describe_history(public)}


def pct(p: float) -> str:
    """``0.3333`` -> ``33.3%``; tiny non-zero values stay visible (``<0.1%``)."""
    if p <= 0:
        return "0%"
    if p < 0.0005:
        return "<0.1%"
    if p > 0.9995 and p < 1:
        return ">99.9%"
    return f"{100 * p:.1f}%".replace(".0%", "%")


TOP_CHOICES = 4
"""How many of a decision's likeliest moves are listed where it has many (a bid among 60)."""


def top_choices(actions: Sequence[ActionProbability], chosen: str | None, keep: int = TOP_CHOICES
                ) -> tuple[list[ActionProbability], int, float]:
    """The `keep` likeliest actions and the chosen one, likeliest first; how many others there
    are and their total probability. A decision with few more actions than that keeps all of
    them, in their order."""
    if len(actions) <= keep + 2:
        return list(actions), 0, 0.0
    ranked = sorted(actions, key=lambda a: -a.probability)
    shown = ranked[:keep] + [a for a in ranked[keep:] if a.label == chosen]
    others = [a for a in ranked if a not in shown]
    return shown, len(others), sum(a.probability for a in others)


def duration(seconds: float) -> str:
    """``45 s``, ``12 min``, ``1 h 20 min``: an estimate's time, rounded up to what it means."""
    if seconds < 90:
        return f"{max(1, round(seconds))} s"
    whole = -(-int(seconds) // 60)
    if whole < 60:
        return f"{whole} min"
    return f"{whole // 60} h" + (f" {whole % 60} min" if whole % 60 else "")


def bar_width(p: float) -> int:
    """A probability bar's width in whole percent (a CSS class ``w-N``: the pages have no inline
    styles); a non-zero probability gets at least 1% so that it stays visible."""
    if not p > 0:
        return 0
    return max(1, min(100, round(100 * p)))


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def sci(x: float | None) -> str:
    """Small numbers as ``3.2×10⁻⁵``; ordinary ones as they are."""
    if x is None:
        return "—"
    if x == 0:
        return "0"
    if 1e-3 <= abs(x) < 1e4:
        return f"{x:.4g}"
    mantissa, exponent = f"{x:.2e}".split("e")
    mantissa = mantissa.rstrip("0").rstrip(".")
    return f"{mantissa}×10{str(int(exponent)).translate(_SUPERSCRIPT)}"


def fmt_signed(x: float | None, digits: int = 3) -> str:
    """``+0.056``, ``−1``, ``0``, with a real minus sign."""
    if x is None:
        return "—"
    if abs(x) < 0.5 * 10.0**-digits:
        return "0"
    text = f"{abs(x):.{digits}f}"
    if "." in text:  # trailing zeros of the decimals only: 1,000 stays 1000
        text = text.rstrip("0").rstrip(".")
    return ("+" if x > 0 else "−") + text


_NEGATIVE_ZERO = re.compile(r"(?<![\w.])-(?=0(?:\.0+)?(?![\d.]))")


def format_text(template: Any, *args: Any, **kwargs: Any) -> str:
    """Jinja's ``format`` filter (``"%.3f"|format(x)``), with no negative zero: a value that
    rounds to zero prints ``0.000``, never ``-0.000`` (a loss of 0.0001, or a sum that came out
    as -0.0)."""
    text = str(template) % (kwargs or args)
    return _NEGATIVE_ZERO.sub("", text)


def piece_word(pieces: str, count: int = 1) -> str:
    word = PIECE_WORDS.get(pieces, "piece")
    if count == 1:
        return word
    return "dice" if word == "die" else word + "s"
