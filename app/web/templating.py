"""The Jinja2 environment of the pages and the helpers their templates call."""

from __future__ import annotations

from fastapi.templating import Jinja2Templates

from app.core.config import REPO_ROOT
from app.services.analysis.coach import NEGLIGIBLE
from app.services.analysis.results import MIN_HANDS_FOR_VERDICT, luck_words, signed
from app.web import format
from app.web.csrf import csrf_token

TEMPLATES_DIR = REPO_ROOT / "templates"

templates = Jinja2Templates(directory=str(TEMPLATES_DIR))
templates.env.globals.update(
    piece_view=format.piece_view,
    label_parts=format.label_parts,
    key_words=format.key_words,
    die_glyph=format.die_glyph,
    pct=format.pct,
    bar_width=format.bar_width,
    top_choices=format.top_choices,
    duration=format.duration,
    duration_span=format.duration_span,
    sci=format.sci,
    fmt_signed=format.fmt_signed,
    fmt_value=format.fmt_value,
    signed_fixed=signed,
    rounded_parts=format.rounded_parts,
    luck_words=luck_words,
    text_parts=format.text_parts,
    piece_word=format.piece_word,
    csrf_token=csrf_token,
    negligible=NEGLIGIBLE,
    min_hands_for_verdict=MIN_HANDS_FOR_VERDICT,
)
templates.env.filters["format"] = format.format_text
