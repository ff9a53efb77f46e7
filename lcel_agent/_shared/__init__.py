"""The bottom floor: small pieces every room uses, none of which imports anything of the library.

:mod:`.error_class` defines :class:`~lcel_agent.errors.ErrorClass` (published by
:mod:`lcel_agent.errors`; it sits here so the run's records in :mod:`lcel_agent.result`
can name it from below the errors), :mod:`.answer_codes` the answer stage's codes (the
``Trigger`` that ended the acting, the ``Repair`` it made), :mod:`.messages` reads chat messages
(``message_text``, media blocks), :mod:`.lazy` imports on first use (a package's lazy
names, model class checks that import nothing), :mod:`.protocol` names the two protocols
(``ProtocolName``), and :mod:`.timeout` runs a call with a time limit, sync or async. Each is imported by its own path
(``from lcel_agent._shared.messages import message_text``); this file imports nothing,
and none of them may import from the library: every other room stands on them.
"""
