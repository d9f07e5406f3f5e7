"""Short form of the benchmark's soak (`python -m bench` runs 500 reruns): reruns with varied input,
hostile ones among them, raise nothing and don't grow memory without bound."""
from harness.soak import soak


def test_reruns_with_varied_input_keep_memory_bounded():
    r = soak(reruns=24, warmup=8)
    assert r["rerun_exceptions"] == 0
    assert r["rss_growth_mb"] < 50, r
