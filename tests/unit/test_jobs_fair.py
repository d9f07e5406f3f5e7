"""The heavy-job queue's fairness (runtime/job_queue.py), on in-process slots (no children): a session has one job
waiting at most, a client at most `per_client` waiting or running, a lecturer's job waits ahead of everyone's and
is not turned away by a full line. The same on a real server, with the pages' messages:
tests/browser/test_fair_queue.py."""
import pytest

from runtime import job_queue


def full(per_client: int = 2, waiting: int = 3) -> job_queue.Queue:
    """A queue of one slot, already taken."""
    q = job_queue.Queue(slots=1, waiting=waiting, memory_mb=None, per_client=per_client)
    q.reserve(owner="holder", session="holder", client="10.0.0.9")
    return q


def test_a_session_has_one_job_waiting_whatever_its_owners():
    q = full()
    q.reserve(owner="s1:lab", session="s1", what="The training run")
    with pytest.raises(job_queue.SessionWaiting) as e:
        q.reserve(owner="s1", session="s1", what="The measurement")
    assert e.value.what == "The training run" and q.counts() == (1, 1)
    q.reserve(owner="s1:lab", session="s1", what="The training run")        # its own owner replaces it
    assert q.counts() == (1, 1)


def test_a_client_has_at_most_per_client_jobs_waiting_or_running():
    q = full(per_client=2, waiting=10)
    q.reserve(owner="a", session="a", client="10.0.0.1")
    q.reserve(owner="b", session="b", client="10.0.0.1")
    with pytest.raises(job_queue.ClientBusy) as e:
        q.reserve(owner="c", session="c", client="10.0.0.1")
    assert e.value.mine == 2
    q.reserve(owner="d", session="d", client="10.0.0.2")                     # another browser waits as usual
    q.reserve(owner="e", session="e", client=None)                           # one on this machine: not bounded
    assert q.counts() == (1, 4)


def test_a_lecturers_job_waits_first_and_is_not_turned_away_by_a_full_line():
    q = full(waiting=2)
    jobs = [q.reserve(owner=f"s{i}", session=f"s{i}", client=f"10.0.1.{i}") for i in range(2)]
    with pytest.raises(job_queue.Busy):
        q.reserve(owner="late", session="late", client="10.0.1.9")
    first = q.reserve(owner="l1", session="l1", priority=job_queue.LECTURER)
    second = q.reserve(owner="l2", session="l2", priority=job_queue.LECTURER)
    assert [first.position, second.position] + [j.position for j in jobs] == [1, 2, 3, 4]
