"""The README stays a page for users: at most `MAX_README_LINES` lines, and every link in it to
a file of the repository (the docs, the screenshots) leads to a file that exists and, where it
names a heading, to a heading of that page.  (The pages of docs/ are checked by
``mkdocs build --strict``, which scripts/test runs.)"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

from tests.conftest import REPO_ROOT

README = REPO_ROOT / "README.md"
MAX_README_LINES = 300
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
"""A Markdown link or image, inline: its target."""


def slug(heading: str) -> str:
    """A heading's anchor as Python-Markdown's table of contents (MkDocs) makes it: accents
    dropped, lower case, what is not a word character, a space or a hyphen removed, runs of
    spaces and hyphens one hyphen."""
    text = unicodedata.normalize("NFKD", heading).encode("ascii", "ignore").decode()
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def anchors(page: Path) -> set[str]:
    """The anchors of a Markdown page's headings (outside code blocks)."""
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    return {slug(m) for m in re.findall(r"^#+\s+(.+?)\s*#*$", text, flags=re.M)}


def local_links(text: str) -> list[str]:
    """The targets of `text`'s links that are files of the repository, not web addresses."""
    return [target for target in LINK.findall(text)
            if not re.match(r"[a-z][a-z0-9+.-]*:", target) and not target.startswith("#")]


def broken(source: Path) -> list[str]:
    """The links of `source` that lead nowhere, each with why."""
    problems = []
    for target in local_links(source.read_text(encoding="utf-8")):
        path_text, _, anchor = target.partition("#")
        path = (source.parent / path_text).resolve()
        if not path.is_file():
            problems.append(f"{target}: no such file")
        elif anchor and anchor not in anchors(path):
            problems.append(f"{target}: {path.name} has no heading #{anchor}")
    return problems


def test_the_readme_is_at_most_300_lines() -> None:
    lines = len(README.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_README_LINES, (
        f"README.md has {lines} lines (at most {MAX_README_LINES}): move detail to docs/")


def test_every_link_of_the_readme_resolves() -> None:
    assert local_links(README.read_text(encoding="utf-8")), "the README links to no page"
    assert broken(README) == []


def test_the_readme_links_every_page_of_the_docs() -> None:
    """The README's index of the docs leaves no page out."""
    linked = {(README.parent / t.partition("#")[0]).resolve()
              for t in local_links(README.read_text(encoding="utf-8"))}
    pages = {p.resolve() for p in (REPO_ROOT / "docs").rglob("*.md")} - {
        (REPO_ROOT / "docs" / "index.md").resolve()}
    assert sorted(str(p.relative_to(REPO_ROOT)) for p in pages - linked) == []


def test_a_broken_link_is_found(tmp_path: Path) -> None:
    """The checks find what they look for: a missing file and a missing heading."""
    (tmp_path / "page.md").write_text("# A page\n\n## Its part\n", encoding="utf-8")
    source = tmp_path / "README.md"
    source.write_text("[ok](page.md#its-part) [web](https://example.org/x.md) [no](nope.md) "
                      "![img](page.md#a-page) [bad](page.md#elsewhere)\n", encoding="utf-8")
    assert broken(source) == ["nope.md: no such file",
                              "page.md#elsewhere: page.md has no heading #elsewhere"]
    assert slug("Several machines: compose") == "several-machines-compose"
    assert slug("Limit hold'em") == "limit-holdem"
