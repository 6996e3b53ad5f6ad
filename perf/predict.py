"""`predict`'s throughput against a server with a fixed latency: N requests in flight against one at
a time, same rows, same run.

Run: ``python -m perf.predict [--rows 200] [--latency 0.05] [--concurrency 8]``. The server is the
tests' loopback fake (``tests/support/fake_openai.py``), answering every request after ``latency``
seconds; the ratio is what concurrency buys when the model, not the client, is the bottleneck. The
file-writing cost (one fsync per batch of finished rows) is included in both.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

from perf.common import table


def main(rows: int = 200, latency: float = 0.05, concurrency: int = 8) -> None:
    from longbench_suite import registry
    from longbench_suite.predict import OpenAIBackend, predict_split
    from tests.support.fake_openai import FakeOpenAI

    task = registry.benchmark("longbench").task("qasper")  # chat mode
    split = [
        {"query_id": f"q{i}", "input": f"Question {i}?", "answer_prefix": "", "use_chat_template": True}
        for i in range(rows)
    ]
    results = []
    with (
        FakeOpenAI(lambda prompt: prompt.upper(), slow_seconds=latency) as server,
        tempfile.TemporaryDirectory() as d,
    ):
        server.faults = {n: "slow" for n in range(10 * rows)}
        for n in (1, concurrency):
            backend = OpenAIBackend(server.url, "m", api_key="k", concurrency=n)
            path = os.path.join(d, f"c{n}.jsonl")
            start = time.perf_counter()
            journal = predict_split(task, split, backend, path, progress=False)
            results.append((n, rows / (time.perf_counter() - start), journal.predictions()))
    assert results[0][2] == results[1][2], "concurrency changed the predictions"
    print(
        table(
            [[f"{n} in flight", rows, f"{rate:.1f}"] for n, rate, _ in results],
            [f"predict (fake server, {latency * 1000:.0f} ms per reply)", "rows", "rows/s"],
        )
    )
    print(f"ratio: {results[1][1] / results[0][1]:.2f}x with {concurrency} in flight (ideal {concurrency}x)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args()
    main(args.rows, args.latency, args.concurrency)
