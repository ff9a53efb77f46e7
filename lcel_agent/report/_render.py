"""Fill the HTML templates (package data) with a run's or a batch's view.

Jinja2 escapes every value, so text from the model or a tool (which may hold
``<script>``, links or markup) shows as text and never runs; the CSS and the
script are inlined, so the page needs nothing but itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from importlib import resources
from typing import Any

import jinja2
from markupsafe import Markup

from ._batch import batch_view
from ._view import css_name, run_view

__all__ = ["render_batch", "render_run"]


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


def render_batch(
    records: Sequence[Mapping[str, Any]],
    problems: Sequence[tuple[int, str]] = (),
    *,
    title: str = "batch",
) -> str:
    """One self-contained HTML page for a batch: figures, distributions, each run's report."""
    return _render("batch.html.j2", batch=batch_view(records, problems, title))
