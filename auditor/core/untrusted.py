"""Text from a checkpoint, shown safely: tensor names, header metadata, file and folder names, config.json values
and the finding messages that embed them are the repo author's text, not st-audit's.

A tensor named ``"x\\n::warning title=pwned::injected\\n.weight"`` printed as it is puts a workflow command into a
GitHub Actions log; ``ESC ] 8`` or ``ESC [2J`` in a name drive the reader's terminal; ``<script>`` in a Markdown
step summary is HTML. Every human format therefore renders such text through one of these, at the moment it is
rendered (a finding keeps the exact names: JSON is machine output and its encoder escapes control characters):

- ``printable``: terminals and CI logs (table, summary, JUnit, stderr lines): every character that is not
  printable (``str.isprintable``: control, format, separator characters but the space) written as Python's repr
  writes it (``\\n``, ``\\x1b``, ``\\u202e``), so a name never starts a new line or an escape sequence; and what a CI
  runner reads as a command is defused: ``::`` at the start of the text or after a space (GitHub Actions:
  a line that starts with ``::`` once leading spaces are trimmed), ``##[``, ``##vso[`` and ``##teamcity[`` anywhere
  (Azure Pipelines, TeamCity): their first character is written as its escape (``\\x3a:``, ``\\x23#``).
- ``markdown``: ``printable``, then HTML's special characters as entities and Markdown's inline punctuation
  backslash-escaped, so nothing in it is markup; ``markdown_code``: ``printable`` in a code span that no backtick in
  the text can close.
- ``html``: ``printable``, then ``html.escape``.

A backslash already in the text is left as it is (Windows paths stay readable), so ``\\n`` in a name may also have
been those two characters: JSON has the exact text.
"""

from __future__ import annotations

import html as _html
import re

# what CI runners read as a command in a log line (see the module docstring)
_CI_COMMAND = re.compile(r"(?:^|(?<=\s))(:):|(#)(?=#(?:vso|teamcity)?\[)", re.IGNORECASE)
_ESCAPED_FIRST = {":": "\\x3a", "#": "\\x23"}
# Markdown: HTML's specials as entities, inline punctuation (emphasis, code, links, images, tables, strike-through,
# autolinks, escapes) behind a backslash, and what opens a block at the start of a line (a heading, a list, a quote)
_MD_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
_MD_INLINE = re.compile(r"[\\`*_\[\]|~!&<>]|^[#+\-=.]")
_MD_ORDERED = re.compile(r"^(\d{1,9})([.)])")  # "1. " or "1) " opens an ordered list


def printable(text: str) -> str:
    """``text`` for a terminal or a CI log: control characters as escapes, CI commands defused."""
    if not text.isprintable():
        text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    if "::" in text or "##" in text:
        text = _CI_COMMAND.sub(lambda m: _ESCAPED_FIRST[m.group(1) or m.group(2)] + ("" if m.group(2) else ":"), text)
    return text


def markdown(text: str) -> str:
    """``text`` as inert Markdown (GitHub-flavoured): it renders as the characters ``printable`` gives."""
    shown = _MD_INLINE.sub(lambda m: _MD_ENTITIES.get(m.group(0)) or "\\" + m.group(0), printable(text))
    return _MD_ORDERED.sub(r"\1\\\2", shown)


def markdown_code(text: str, *, cell: bool = False) -> str:
    """``text`` in a Markdown code span (shown literally, monospaced): fenced by more backticks than any run in it;
    ``cell``: in a table row, where a ``|`` ends the cell unless escaped, even in a code span."""
    shown = printable(text)
    longest = max((len(run) for run in re.findall("`+", shown)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if shown.startswith("`") or shown.endswith("`") or not shown.strip(" ") else ""
    body = shown.replace("|", "\\|") if cell else shown
    return f"{fence}{pad}{body}{pad}{fence}"


def html(text: str, quote: bool = True) -> str:
    """``text`` for an HTML page: visible escapes for control characters, then HTML escaping."""
    return _html.escape(printable(text), quote)
