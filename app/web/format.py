"""Formatting for the pages: numbers, probabilities and the pieces of a game's labels.

Nothing here knows a game: labels are drawn from what the game says they are made of.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

from app.schemas import ActionProbability, PieceOut
from app.services.bots.strength import sci
from solver.games import Card, Die, get_view

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
    for part in get_view(game).label_parts(label):
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


_WORD = re.compile(r"([A-Za-z0-9]+)")


def text_parts(game: str, text: str) -> list[dict[str, Any]]:
    """A sentence of the game's (``Showdown with Js on the board``) as text and the pieces the
    pages draw: each word that the game reads as cards with a suit becomes those cards, as the
    table and the events draw them."""
    parts: list[dict[str, Any]] = []
    played = get_view(game)
    for i, chunk in enumerate(_WORD.split(text)):
        read = played.label_parts(chunk) if i % 2 and chunk else ()
        if read and all(isinstance(p, Card) and p.suit for p in read):
            parts.extend(piece_view(PieceOut(kind="card", text=str(p), rank=p.rank,
                                             suit=p.suit)) for p in read
                         if isinstance(p, Card))
        elif parts and parts[-1]["kind"] == "text":
            parts[-1] = {"kind": "text", "name": parts[-1]["name"] + chunk}
        elif chunk:
            parts.append({"kind": "text", "name": chunk})
    return parts


def key_words(game: str, key: str) -> dict[str, Any]:
    """An information set's key (``Qs|rc|Kh|cr``) as the game says it: what the player holds
    as pieces, and the public history in words."""
    private, sep, public = key.partition("|")
    if not sep:
        private, public = "", key
    return {"private": label_parts(game, private) if private else [],
            "history": get_view(game).describe_history(public)}


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


def rounded_parts(values: Sequence[float], digits: int = 3) -> list[float]:
    """`values` rounded to `digits` decimals so that they add up to their total rounded the
    same way (the largest remainders round up): the parts a page shows add up to the total it
    shows."""
    scale = 10 ** digits
    total = round(math.fsum(values) * scale)
    floors = [math.floor(v * scale) for v in values]
    order = sorted(range(len(values)), key=lambda i: floors[i] - values[i] * scale)
    bumped = set(order[:total - sum(floors)])
    return [(f + (i in bumped)) / scale for i, f in enumerate(floors)]


def duration_span(low: float | None, likely: float | None, high: float | None) -> str:
    """An estimate with its range: ``about 12 min`` where the range is narrow, ``10–25 min``
    where it is not, ``at least 3 min`` where only its low end is known."""
    if low is None:
        return ""
    if high is None:
        return f"at least {duration(low)}" if low >= 1 else "longer than planned"
    if likely is not None and (high - low <= 60 or high <= 1.3 * max(low, 1.0)):
        return f"about {duration(likely)}"
    first, second = duration(low), duration(high)
    if first.endswith(" min") and second.endswith(" min") and " h" not in second:
        first = first.removesuffix(" min")
    return f"{first}–{second}"


def bar_width(p: float) -> int:
    """A probability bar's width in whole percent (a CSS class ``w-N``: the pages have no inline
    styles); a non-zero probability gets at least 1% so that it stays visible."""
    if not p > 0:
        return 0
    return max(1, min(100, round(100 * p)))


__all__ = ["sci"]  # the pages' number format, shared with the services' sentences


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


def fmt_value(x: float | None, digits: int = 3) -> str:
    """A value in a table: `fmt_signed` with `digits` decimals below 10 and one fewer for each
    power of ten above (``+60.81``, ``−247.1``, ``−2704``): a pot of thousands of chips needs
    no thousandths, and a narrow column keeps the number on one line."""
    if x is None or abs(x) < 10:
        return fmt_signed(x, digits)
    return fmt_signed(x, max(0, digits - math.floor(math.log10(abs(x)))))


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
