"""BFCL v4 through the agent loop: every framework on the same local model, BFCL's own checker.

    make bench-bfcl-quick        # a few entries of each category, every framework
    make bench-bfcl              # 30 even-id entries of each category (docs/benchmarks.md)
    python -m benchmarks.bfcl.replay     # the ground truth through the harness: 200/200

The Berkeley Function Calling Leaderboard's data, backends and checkers come from the
``bfcl-eval`` package (Apache-2.0), installed with ``--no-deps`` (``_bfcl``). Modules:

* ``entries``: categories, entries and ground truth, even/odd selection;
* ``schema``: BFCL's function docs as LangChain tools (``GORILLA_TO_OPENAPI``);
* ``backends``: where a call runs (an entry's live backends, or nowhere for single-turn);
* ``recording``: every model call (a callback handler) and every executed call per step;
* ``rows``: the frameworks (``benchmarks.peers``), each one user turn at a time;
* ``harness``: one entry through one framework, turn by turn, scored (``scoring``);
* ``servers``, ``store``, ``run``, ``report``: the servers, the resumable results file,
  the command line and the tables.

The library never imports this package.
"""
