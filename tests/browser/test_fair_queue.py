"""The heavy-job queue is fair to a class (runtime/job_queue.py, runtime/heavy_jobs.py), on the real server over the
websocket, clients told apart by the address a proxy on loopback forwards (as the class balancer does). Before, a
tab held a training run and a measurement at once, and fifteen tabs pushed a lecturer's job to the back of 29.
With both slots busy: a tab whose training run waits is refused a measurement with a message; one browser (one
address) holds at most two jobs, the third is refused with a message; a lecturer's job (a session that proved with
its class key that it hosts a class) waits first in line, and a made-up key buys nothing; Why attention's Measure
waits in the same line (it ran at once, beside the slots). Slide exports are made holding a slot too, on threads
of their own: a crowd of them no longer holds up another session's CSV."""
import contextlib
import re
import threading
import time

from classstore import store as cs
from runtime import job_queue
from serve import wire
from tests.browser.test_heavy_jobs import QUERY, queued_notice

LONG = "masks_tab=Cost&masks_cost_n=16384&masks_cost_methods=dense+%28no+mask%29"     # tens of seconds
WHY = "why_tab=RNN+vs+attention&why_rnn_n=4096"
POSITION = re.compile(r"Queued, position (\d+) of (\d+)")


def client(address: str) -> dict:
    return {"X-Forwarded-For": address}


def measure(s: wire.Session, query: str = QUERY, link: str = "") -> list:
    """Press Measure on the masks page; the messages until its place in line (or its answer, or a refusal)."""
    opened = s.run("masks", f"{query}{link}")
    s.start("masks", query, [(wire.widget_id(opened, "masks_cost_go"), "trigger_value", True)])
    return s.read(until=lambda m: queued_notice(m) or running(m) or m.WhichOneof("type") == "script_finished")


def running(msg) -> bool:
    """A measurement's progress bar: it has a slot."""
    return msg.WhichOneof("type") == "delta" and msg.delta.new_element.WhichOneof("type") == "progress"


def saying(s: wire.Session, text: str, runs: int = 3) -> bool:
    """Whether the masks page's run says `text` in an alert (a rerun the page before asked for may come first)."""
    for _ in range(runs):
        msgs = s.read(until=lambda m: queued_notice(m) or running(m) or m.WhichOneof("type") == "script_finished")
        if any(text in t for t in wire.texts(msgs, "alert")):
            return True
        if wire.widget(msgs, "button", "masks_cost_go") is not None:
            return False                                      # the masks page ran and did not say it
    return False


def tab_id(msgs, key: str) -> str:
    """The id of the tabs (a block, not an element) whose user key is `key`."""
    return next(m.delta.add_block.tab_container.id for m in msgs if m.WhichOneof("type") == "delta"
                and m.delta.WhichOneof("type") == "add_block" and m.delta.add_block.tab_container.id.endswith(key))


def position(msgs) -> int | None:
    found = [POSITION.match(t) for t in wire.texts(msgs)]
    return next((int(m[1]) for m in reversed(found) if m), None)


def test_one_waiting_job_per_tab_two_per_browser_and_the_lecturer_first(server_url):
    code, key = cs.open_store(f"sqlite:///{cs.DEFAULT_SQLITE}").create()
    with contextlib.ExitStack() as stack:
        def tab(address: str) -> wire.Session:
            return stack.enter_context(wire.session(server_url, timeout=180, headers=client(address)))

        busy = [tab(f"10.9.0.{i}") for i in (1, 2)]              # two browsers fill both slots
        threads = [threading.Thread(target=measure, args=(s, LONG)) for s in busy]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=180)
        assert job_queue.SLOTS == 2

        lab = tab("10.9.0.3")                                     # a training run waits, then a measurement
        masks = lab.run("masks", QUERY)
        cost_tab = (tab_id(masks, "masks_tab"), "string_value", "Cost")
        go = (wire.widget_id(masks, "masks_cost_go"), "trigger_value", True)
        opened = lab.run("training_lab")
        lab.start("training_lab", "", [(wire.widget_id(opened, "lab_start"), "trigger_value", True)])
        lab.read(until=queued_notice)                             # the run waits (the page may rerun after)
        lab.start("masks", QUERY, [cost_tab, go])
        refused = saying(lab, "is still waiting for a slot in this tab, and a tab may have one heavy job waiting")
        assert refused, "the measurement was not refused"

        one_browser = [tab("10.9.0.4") for _ in range(3)]
        first, second, third = (measure(s) for s in one_browser)
        assert position(first) is not None and position(second) is not None
        assert any("Your browser already has 2 heavy jobs waiting or running" in t
                   for t in wire.texts(third, "alert")), wire.texts(third, "alert")

        forged = measure(tab("10.9.0.5"), link=f"&class_host={code}.not-the-key")
        lecturer = measure(tab("10.9.0.6"), link=f"&class_host={code}.{key}")
        assert position(lecturer) == 1, wire.texts(lecturer)
        assert position(forged) >= 4, wire.texts(forged)      # behind the lab's run and the browser's two

        why = tab("10.9.0.7")                                     # Why attention's Measure waits in line too
        page = why.run("why_attention", WHY)
        why.start("why_attention", WHY, [(wire.widget_id(page, "why_rnn_go"), "trigger_value", True)])
        assert position(why.read(until=queued_notice)) is not None


SLIDES = 8                    # more than asyncio's default threads on two cores (6)


def test_slides_clicked_at_once_wait_in_the_queue_and_a_csv_download_does_not_wait_for_them(server_url):
    """Before, downloads were made on asyncio's default threads (6 on two cores): slide clicks, drawn one at a time
    by one browser, held a CSV download of another session until all but a few of them were drawn."""
    with contextlib.ExitStack() as stack:
        clickers = [stack.enter_context(wire.session(server_url, timeout=180)) for _ in range(SLIDES)]
        slides = [next(w.deferred_file_id for w in wire.elements(s.run("explorer"), "download_button")
                       if w.id.endswith("_slide_png")) for s in clickers]
        reader = stack.enter_context(wire.session(server_url, timeout=180))
        csv = wire.widget(reader.run("explorer", "explorer_tab=Downloads"), "download_button", "explorer_file_csv")
        answered: list[int] = []
        threads = [threading.Thread(target=lambda i=i: (clickers[i].download(slides[i]), answered.append(i)))
                   for i in range(SLIDES)]
        for t in threads:
            t.start()
        time.sleep(0.3)                                       # the slides asked first
        url, error = reader.download(csv.deferred_file_id)
        pending = SLIDES - len(answered)
        for t in threads:
            t.join(timeout=300)
    assert url and not error, error
    assert pending >= SLIDES - job_queue.SLOTS, f"the CSV waited for {SLIDES - pending} slides"
