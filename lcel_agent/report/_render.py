"""Fill the HTML templates (package data) with a run's or a batch's view.

Jinja2 escapes every value, so text from the model or a tool (which may hold
``<script>``, links or markup) shows as text and never runs; the CSS and the
script are inlined, so the page needs nothing but itself.

A big batch keeps its runs' own pages gzipped (base64, in groups of
:data:`PACK_SIZE`): the page stays a few megabytes and opens at once, and the
script unpacks a run's page when it is opened. A small batch inlines them, so
its page reads even with scripts off.
"""

from __future__ import annotations

import base64
import gzip
import json
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import resources
from typing import Any

import jinja2
from markupsafe import Markup

from ._batch import BatchView, batch_view
from ._data import css_name
from ._view import run_view

__all__ = ["INLINE_LIMIT", "PACK_SIZE", "TABLE_ROWS", "render_batch", "render_run"]

#: Rows of the runs table in the page as it loads (the script shows more on demand): a
#: thousand-row table would take most of a second to lay out.
TABLE_ROWS = 200

#: Characters of run pages a batch report inlines; past this they are packed.
INLINE_LIMIT = 1_000_000
#: Run pages per packed group: one group is unpacked when one of its runs is opened.
PACK_SIZE = 50


def _asset(name: str) -> str:
    return (resources.files(__package__) / "templates" / name).read_text(encoding="utf-8")


@cache
def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader(__package__ or "lcel_agent.report", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["css"] = css_name
    env.filters["ms"] = lambda v: f"{v:,.0f}" if v >= 10 else f"{v:.2f}".rstrip("0").rstrip(".")
    env.globals["style"] = Markup(_asset("report.css"))
    env.globals["script"] = Markup(_asset("report.js"))
    return env


def _render(template: str, **context: Any) -> str:
    return _environment().get_template(template).render(**context)


def render_run(data: Mapping[str, Any]) -> str:
    """One self-contained HTML page for one run (``AgentResult.to_dict()``-shaped data)."""
    return _render("run.html.j2", run=run_view(data))


def _pack(pages: Sequence[tuple[str, str]]) -> tuple[str, str]:
    """``(anchors, base64 of the gzipped JSON list of pages)`` of one group of run pages."""
    data = json.dumps([html for _, html in pages], ensure_ascii=False).encode("utf-8")
    packed = base64.b64encode(gzip.compress(data, compresslevel=9, mtime=0)).decode("ascii")
    return " ".join(anchor for anchor, _ in pages), packed


def _script_json(value: Any) -> Markup:
    """``value`` as JSON that is safe inside ``<script>`` (no ``<``, ``>`` or ``&`` in it)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


def _table_data(view: BatchView) -> Markup:
    """The runs table's rows for the script: sorting and filtering work on all of them."""
    return _script_json(
        [
            [row.id, row.task[:160], row.stop_reason, row.loops, row.tokens,
             round(row.elapsed_s, 3), row.line, row.anchor if row.run else "", row.problem[:200]]
            for row in view.table
        ]
    )  # fmt: skip


def render_batch(
    records: Sequence[Mapping[str, Any]],
    problems: Sequence[tuple[int, str]] = (),
    *,
    title: str = "batch",
) -> str:
    """One self-contained HTML page for a batch: figures, distributions, each run's report."""
    view = batch_view(records, problems, title)
    page = _environment().get_template("batch_run.html.j2")
    pages = [(row.anchor, page.render(row=row)) for row in view.rows if row.run]
    inline: str = ""
    packed: list[tuple[str, str]] = []
    if sum(len(html) for _, html in pages) <= INLINE_LIMIT:
        inline = "".join(html for _, html in pages)
    else:
        packed = [_pack(pages[i : i + PACK_SIZE]) for i in range(0, len(pages), PACK_SIZE)]
    # The pages were rendered (escaped) by the same environment: they go in as markup.
    return _render(
        "batch.html.j2",
        batch=view,
        inline_pages=Markup(inline),
        packed=packed,
        table_rows=TABLE_ROWS,
        table_data=_table_data(view),
    )
