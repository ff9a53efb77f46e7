"""``agent.get_graph()``: the stages in chain order and the loop's back edge.

::

    print(agent.get_graph().draw_mermaid())
    agent.get_graph().print_ascii()          # needs the grandalf package

The drawing is ``__start__ → assemble_prompt → … → trim_memory``, then two
conditional edges out of the last stage: ``loop`` back to the first stage (the
gate allowed another model call) and ``stop`` to ``__end__``.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

from langchain_core.runnables import Runnable
from langchain_core.runnables.graph import Graph

__all__ = ["loop_graph"]


def loop_graph(
    stages: Mapping[str, Runnable[Any, Any]],
    input_schema: type[Any],
    output_schema: type[Any],
) -> Graph:
    """The graph of an agent whose step chain is ``stages`` (in order)."""
    graph = Graph()
    start = graph.add_node(input_schema, "__start__")
    nodes = [graph.add_node(stage, name) for name, stage in stages.items()]
    end = graph.add_node(output_schema, "__end__")
    graph.add_edge(start, nodes[0])
    for source, target in itertools.pairwise(nodes):
        graph.add_edge(source, target)
    graph.add_edge(nodes[-1], nodes[0], "loop", conditional=True)
    graph.add_edge(nodes[-1], end, "stop", conditional=True)
    return graph
