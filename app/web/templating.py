"""The Jinja2 environment of the pages and the helpers their templates call."""

from __future__ import annotations

from fastapi.templating import Jinja2Templates

from app.config import REPO_ROOT
from app.services.coach import NEGLIGIBLE
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
    sci=format.sci,
    fmt_signed=format.fmt_signed,
    piece_word=format.piece_word,
    csrf_token=csrf_token,
    negligible=NEGLIGIBLE,
)
templates.env.filters["format"] = format.format_text
