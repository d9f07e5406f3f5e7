"""The class setup for real: HAProxy and two app replicas on loopback, started once for the module."""
import random

import pytest

from serve import local

XDIST_GROUP = "serve"


def pytest_collection_modifyitems(items):
    """Under pytest-xdist every test here goes to one worker, so the class is started once."""
    for item in items:
        if "tests/serve/" in str(item.path):
            item.add_marker(pytest.mark.xdist_group(XDIST_GROUP))


def free_block(n: int) -> int:
    """The first of n consecutive free loopback ports."""
    rng = random.Random()
    for _ in range(200):
        base = rng.randrange(20_000, 60_000)
        if all(local.port_free(base + i) for i in range(n)):
            return base
    raise RuntimeError("no free block of ports")


@pytest.fixture(scope="module")
def klass(tmp_path_factory):
    """A class of two replicas (warmed on the explorer) behind HAProxy; at most 5 uploads per client in 10 s."""
    state_dir = tmp_path_factory.mktemp("class")
    base = free_block(3)
    try:
        state = local.up(2, base, state_dir, uploads_per_window=5)
    except RuntimeError as e:
        pytest.fail(str(e))
    try:
        yield state
    finally:
        local.down(state_dir)
