"""The stage rules: the decisions the stages and the loop make, as pure functions of the run.

:mod:`.limits` (``Limits``, the ``gate`` before each loop and the ``finish`` after the
last), :mod:`.breaker` (the circuit breaker, ``max_errors``), :mod:`.drift` (is the model
going round in circles), :mod:`.gathered` (the run's successful results, read from its
records), :mod:`.protocols` (how a loop is written into the window, per protocol),
:mod:`.structured` (``response_format``: checking a structured answer) and
:mod:`.policies` (which ``Policy`` answers which error class), and :mod:`.numbers` (the
checks of a number argument that ``create_agent`` and ``run_batch`` share). They import only the floor
below: :mod:`lcel_agent.errors`, :mod:`lcel_agent.state` (where the breaker's memory,
``BreakerState``, is defined: every run's state carries it), :mod:`lcel_agent.texts`,
``_shared`` and ``_redact``; the stages, the loop, the durable room and the builder import
them. Each is imported by its own path (``from lcel_agent.rules.limits import gate``): this
file imports none of them.
"""
