"""A simulated model server in a process of its own, for tests that kill it (SIGKILL).

``python model_server.py LOG HANG_AT`` serves :class:`TaskReadingModel` on 127.0.0.1,
prints its base URL on the first line of standard output, appends a line to
``LOG/served`` for each chat request, and on request number ``HANG_AT`` (0: never)
writes ``LOG/hang`` and never answers: the test kills the process then, in the middle
of the run's model call, as a crashed or stopped local server would leave it.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

from lcel_agent.testing.offline import TaskReadingModel
from lcel_agent.testing.server import SimulatedOpenAIServer


def main() -> None:
    log, hang_at = Path(sys.argv[1]), int(sys.argv[2])
    model = TaskReadingModel()
    served: list[int] = []

    def policy(messages: list[dict[str, Any]], tools: Any) -> Any:
        served.append(1)
        with open(log / "served", "a", encoding="utf-8") as out:
            out.write(f"{len(served)}\n")
        if len(served) == hang_at:
            (log / "hang").write_text("hang", encoding="utf-8")
            time.sleep(600)
        return model(messages, tools)

    with SimulatedOpenAIServer(policy) as server:
        print(server.base_url, flush=True)
        time.sleep(600)


if __name__ == "__main__":
    main()
