"""The batch benchmark's services in a process of their own: the simulated model, Amap, Baidu.

    python -m benchmarks._batch_server 0.2     # model latency in seconds

Prints one JSON line ``{"base_url", "amap_url", "amap_key", "baidu_url"}`` and serves until
its standard input closes. In a separate process the servers do not compete with the
job for the GIL.
"""

from __future__ import annotations

import json
import sys

from lcel_agent.testing import _http
from lcel_agent.testing.article import ArticleTaskModel
from lcel_agent.testing.faults import Latency
from lcel_agent.testing.server import SimulatedOpenAIServer
from lcel_agent.testing.services import FakeAmapServer, FakeBaiduServer


def main() -> None:
    latency = float(sys.argv[1]) if len(sys.argv) > 1 else 0.2
    # Up to 128 runs in flight connect at once; the stdlib's listen backlog of 5 would
    # refuse some of them and turn the measurement into one of TCP retries.
    _http._HTTPServer.request_queue_size = 512
    with (
        SimulatedOpenAIServer(ArticleTaskModel(), latency=Latency(fixed=latency)) as model,
        FakeAmapServer() as amap,
        FakeBaiduServer() as baidu,
    ):
        print(json.dumps({"base_url": model.base_url, "amap_url": amap.base_url,
                          "amap_key": amap.key, "baidu_url": baidu.base_url}), flush=True)  # fmt: skip
        sys.stdin.read()  # until the benchmark closes the pipe


if __name__ == "__main__":
    main()
