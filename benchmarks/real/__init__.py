"""The real-model benchmark: small open models behind a llama.cpp server on loopback.

``make bench-real`` (everything) and ``make bench-real-quick`` (the article's task on the
1.5B model, lcel_agent and AgentExecutor) drive it; see docs/benchmarks.md, "Real models".
The modules, lowest first: ``models`` (fetch and check the GGUF files), ``tasks`` (the
tasks, each seed's world and the fact check), ``prefix`` (how much of a prompt repeats the
previous one), ``services`` (the seeded Amap/Baidu fakes and the tools), ``proxy`` (the
recording proxy in front of the server), ``server`` (the llama.cpp server process),
``rows`` (the frameworks, from ``benchmarks.peers``), ``report`` (tables and plots) and
``run`` (the CLI).

Nothing here is imported by the library.
"""
