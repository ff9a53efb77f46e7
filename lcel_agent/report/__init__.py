"""See a run: a self-contained HTML report of one run, or of a whole batch.

::

    result = agent.invoke("查询北京天气")
    Path("run.html").write_text(result.to_html())        # AgentResult.to_html() calls render_run

    from lcel_agent.report import read_results, render_batch
    records, problems = read_results("results.jsonl")     # the batch runner's JSON Lines
    Path("batch.html").write_text(render_batch(records, problems))

The page is one file with its CSS, script and charts inline: it opens from disk
and requests nothing. It renders from ``AgentResult.to_dict()``-shaped data, so
results read back from JSON render the same as live ones; every text passes
through the redactor again, and text from the model or a tool is escaped
(a link in an answer shows as text, inert). The command line: ``lcel-agent run
... --report PATH`` and ``lcel-agent report RESULTS.jsonl --out PATH``.
"""

from ._batch import read_results
from ._render import render_batch, render_run

__all__ = ["read_results", "render_batch", "render_run"]
