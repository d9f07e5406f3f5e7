"""python -m serve fails with one line and exit status 2 where there is nothing to act on, before starting
anything: no class up, a port taken, a replica count out of range, no HAProxy."""
import socket

import pytest

from serve.__main__ import main


def test_status_drain_and_down_without_a_class_say_so(tmp_path, capsys):
    assert main(["--state", str(tmp_path), "status"]) == 2
    assert capsys.readouterr().err.startswith("error: no class is up")
    assert main(["--state", str(tmp_path), "drain", "r1"]) == 2
    assert "python -m serve up first" in capsys.readouterr().err
    assert main(["--state", str(tmp_path), "down"]) == 0
    assert capsys.readouterr().out == "no class was up\n"


def test_up_refuses_a_taken_port_before_starting_anything(tmp_path, capsys):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["--state", str(tmp_path), "up", "--replicas", "1", "--port", str(port)]) == 2
    assert f"port(s) {port} on 127.0.0.1 are in use" in capsys.readouterr().err
    assert not (tmp_path / "state.json").exists()


def test_up_without_haproxy_says_how_to_install_it(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))                  # no haproxy on this PATH
    assert main(["--state", str(tmp_path), "up", "--replicas", "1", "--port", "1"]) == 2
    assert capsys.readouterr().err == "error: haproxy is missing: apt-get install -y haproxy\n"


@pytest.mark.parametrize("n", ["0", "17"])
def test_up_refuses_a_replica_count_out_of_range(tmp_path, capsys, n):
    assert main(["--state", str(tmp_path), "up", "--replicas", n, "--port", "1"]) == 2
    assert capsys.readouterr().err == "error: replicas: between 1 and 16\n"
