"""A class through the balancer (serve/): the first view of a server just started, then students speaking
Streamlit's websocket protocol, added level by level (serve/ramp.py), then a replica killed under load.

first_view_cold_s: a headless Chromium's first navigation to the explorer (fresh context, nothing cached) on a
class that has just started and answers its health check, until the first figure is drawn (on a class's server
an inline image: runtime/first_view.py); `first_view_interactive_s` until the first interactive chart is;
`_unwarmed` the same on a replica started without the warm-up; `first_view_run_received_s` when the browser had
the whole first run (the server's part); `first_view_title_s` when the page's title was drawn (what a student
sees first). In the same minutes, on the same machine: `first_view_streamlit_baseline_s` a Streamlit page holding
only a title (the frontend's own start), `first_view_plotly_baseline_s` one holding one Plotly chart (plus
plotly.js). Loopback only; bounded in time.

Then the class answers (serve/class_load.py): ANSWER_STUDENTS students on the class page through the
balancer, the lecturer asking through the store. One question answered within 10 s: `class_answers_submitted`
(acknowledged on the students' screens), `class_answers_counted` (in the store's final count: must be equal),
`class_answer_p95_ms` (pick sent to acknowledgement shown); a second question with a replica killed (SIGKILL) 4 s
in: `class_answers_lost_on_failover` (acknowledged answers the store no longer holds); a third with the store
(Redis) killed with SIGKILL 4 s in, down 2 s (picks then are refused on screen and sent again), and restarted:
`class_store_restart_lost`. ATTENTION_LAB_CLASS_BENCH=answers
runs only this part (a class of its own).

Throughout the ramp, DOWNLOADERS more students on the explorer's Downloads tab click a download every few seconds
and fetch the file through the balancer at once (serve/download_load.py), stopped before the replica is killed:
`class_downloads` clicks, `class_downloads_lost` whose file could not be fetched (must be 0: Streamlit's sweep after
other sessions' runs deleted such files, runtime/downloads.py keeps them for their browsers)."""
import os
import signal
import tempfile
import time
from pathlib import Path

from classstore.store import open_store
from runtime import first_view
from serve import class_load, local, ramp, replicas
from serve import store as redis_server
from serve.download_load import Downloaders

LEVELS, HOLD_S = (10, 25, 50, 75, 100), 40
REPLICAS = int(os.environ.get("ATTENTION_LAB_CLASS_REPLICAS", local.default_replicas()))   # two per core
QUICK_LEVELS, QUICK_HOLD_S = (5, 10), 20
ANSWER_STUDENTS, QUICK_ANSWER_STUDENTS = 100, 30
DOWNLOADERS = 4                   # students clicking downloads during the ramp, beside its students
ANSWER_WINDOW_S = 10              # every student answers within 10 s of the question
FAULT_AT_S = 4                    # a replica (then the store) killed this long after the question is asked
STORE_DOWN_S = 2                  # how long the killed store stays down before `serve restart store`
CHART = '[data-testid="stPlotlyChart"] .main-svg'
FIGURE = f"img.{first_view.IMAGE_CLASS}, {CHART}"      # an image of the light first view, or a chart


def _free_block(n: int) -> int:
    for base in range(8620, 9620, 5):
        if all(local.port_free(base + i) for i in range(n)):
            return base
    raise RuntimeError("no free ports")


def _descendants(pid: int) -> list[int]:
    """Every process below pid (Playwright's driver and the Chromium it started, below this benchmark)."""
    parent = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                parent[int(d.name)] = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        kids = [c for c, pp in parent.items() if pp == p]
        out += kids
        todo += kids
    return out


def _cpu_s(pids) -> float:
    return sum(replicas.cpu_s(p) for p in pids)


def first_view_s(browser, url: str, server_pids=(), path: str = "/explorer", titled: bool = True,
                 figure: str | None = FIGURE) -> dict:
    """Seconds from a fresh context's navigation to the explorer until its first figure is drawn (`s`; None: its
    title), until its first chart is (`interactive_s`), until its title is (`title_s`, titled pages only), until
    the browser had received the whole first run (Streamlit's script_finished: `run_received_s`), and the CPU
    seconds Chromium and the replicas spent meanwhile (`browser_cpu_s`, `server_cpu_s`: what a quiet machine
    must do)."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
    ctx = browser.new_context(viewport={"width": 1440, "height": 1000})
    done: list[float] = []

    def frames(ws):
        def got(payload):
            if isinstance(payload, bytes) and not done:
                msg = ForwardMsg()
                msg.ParseFromString(payload)
                if msg.WhichOneof("type") == "script_finished":
                    done.append(time.perf_counter() - t0)
        ws.on("framereceived", got)
    try:
        page = ctx.new_page()
        page.on("websocket", frames)
        chromium = _descendants(os.getpid())
        b0, s0 = _cpu_s(chromium), _cpu_s(server_pids)
        t0 = time.perf_counter()
        page.goto(f"{url}{path}")
        if titled:
            page.wait_for_selector("h1", timeout=120_000)
        title = time.perf_counter() - t0 if titled else float("nan")     # the page is there: its title
        interactive = float("nan")
        if figure:
            page.wait_for_selector(figure, timeout=120_000)
            first = time.perf_counter() - t0
            page.wait_for_selector(CHART, timeout=120_000)
            interactive = time.perf_counter() - t0
        else:
            first = title
        chromium = _descendants(os.getpid())
        return {"s": first, "interactive_s": interactive, "title_s": title,
                "run_received_s": done[0] if done else float("nan"),
                "browser_cpu_s": _cpu_s(chromium) - b0, "server_cpu_s": _cpu_s(server_pids) - s0}
    finally:
        ctx.close()


def _baseline(browser, tmp: Path) -> dict:
    """The same measure on a Streamlit page holding only a title, and on one holding one two-point Plotly chart:
    what Streamlit's frontend, then plotly.js, cost this machine now, whatever the app does."""
    from harness.server import streamlit_server
    out = {}
    pages = {"streamlit": ("import streamlit as st\nst.title('Attention Lab')\n", True, None),
             "plotly": ("import plotly.graph_objects as go\nimport streamlit as st\n"
                        "st.plotly_chart(go.Figure(go.Scatter(x=[1, 2], y=[1, 2])))\n", False, CHART)}
    for name, (code, titled, figure) in pages.items():
        script = tmp / f"{name}_baseline.py"
        script.write_text(code)
        with streamlit_server(tmp / f"{name}_baseline.log", script=script) as url:
            view = first_view_s(browser, url, path="/", titled=titled, figure=figure)
        out[f"first_view_{name}_baseline_s"] = view["s"]
        out[f"first_view_{name}_baseline_browser_cpu_s"] = view["browser_cpu_s"]
    return out


def _named(view: dict) -> dict:
    """first_view_s's keys as the figures' names: s -> cold_s (first_view_cold_s and its kin)."""
    return {("cold_s" if k == "s" else k): v for k, v in view.items()}


def _class(n: int, state_dir: Path, **kw) -> local.ClassState:
    return local.up(n, _free_block(n + 1), state_dir, **kw)


def answers(state: local.ClassState, n: int) -> dict:
    """The class answering three questions through the balancer (module docstring): the figures."""
    store = open_store(state.store_url)
    code, key = store.create()
    students, stop = class_load.join(state.url, code, n, seed=38, spawn_gap_s=0.1)
    out = {"class_answer_students": n}
    try:
        out["class_answer_students_joined"] = class_load.wait_joined(students, timeout=300)
        time.sleep(class_load.POLL_S)                  # everyone's page refreshing as usual

        def kill_replica():
            r = local.load(state.dir).replica("r2")
            os.kill(r.pid, signal.SIGKILL)

        def kill_store():                              # a crash: no shutdown, down a while, then restarted
            redis_server.stop(local.load(state.dir).store_pid, sig=signal.SIGKILL)
            time.sleep(STORE_DOWN_S)
            local.restart_store(state.dir)
        load = class_load.run_phase(store, code, key, students, "load", window_s=ANSWER_WINDOW_S, seed=1)
        failover = class_load.run_phase(store, code, key, students, "failover", window_s=ANSWER_WINDOW_S, seed=2,
                                        during=kill_replica, during_at_s=FAULT_AT_S)
        restart = class_load.run_phase(store, code, key, students, "restart", window_s=ANSWER_WINDOW_S, seed=3,
                                       during=kill_store, during_at_s=FAULT_AT_S)
    finally:
        class_load.leave(students, stop)
        store.close()
    out.update({
        "class_answers_submitted": load["submitted"], "class_answers_counted": load["counted"],
        "class_answer_p95_ms": load["ack_p95_ms"], "class_answer_p50_ms": load["ack_p50_ms"],
        "class_answer_max_ms": load["ack_max_ms"], "class_answers_all_acked_s": load["all_acked_s"],
        "class_answers_lost_on_failover": failover["lost"],
        "class_answers_submitted_failover": failover["submitted"],
        "class_answers_counted_failover": failover["counted"], "class_answer_reconnects_failover":
            failover["reconnects"], "class_answer_p95_ms_failover": failover["ack_p95_ms"],
        "class_store_restart_lost": restart["lost"], "class_answers_submitted_store_restart": restart["submitted"],
        "class_answers_counted_store_restart": restart["counted"],
        "class_answers_not_saved_store_restart": restart["not_saved"],
        "class_answers_all_acked_s_store_restart": restart["all_acked_s"]})
    problems = [e for phase in (load, failover, restart) for e in phase["errors"]]
    if problems:
        out["class_answer_problem_examples"] = " | ".join(problems[:6])
    return out


def _answers_only(quick: bool) -> dict:
    tmp = Path(tempfile.mkdtemp(prefix="classroom-"))
    state = _class(REPLICAS, tmp / "answers")
    try:
        return answers(state, QUICK_ANSWER_STUDENTS if quick else ANSWER_STUDENTS)
    finally:
        local.down(state.dir)


def run(quick: bool = False) -> dict:
    if os.environ.get("ATTENTION_LAB_CLASS_BENCH") == "answers":
        return _answers_only(quick)
    from playwright.sync_api import sync_playwright

    from harness.server import launch
    tmp = Path(tempfile.mkdtemp(prefix="classroom-"))
    out: dict = {}
    with sync_playwright() as pw:
        browser = launch(pw)
        try:
            out.update(_baseline(browser, tmp))
            cold = _class(1, tmp / "cold", warm_pages=())
            try:
                view = first_view_s(browser, cold.url, [r.pid for r in cold.replicas])
                out.update({f"first_view_{k}_unwarmed": v for k, v in _named(view).items()})
            finally:
                local.down(cold.dir)
            state = _class(REPLICAS, tmp / "class")
            try:
                view = first_view_s(browser, state.url, [r.pid for r in state.replicas])
                out.update({f"first_view_{k}": v for k, v in _named(view).items()})
            except Exception:
                local.down(state.dir)
                raise
        finally:
            browser.close()
    try:
        def pids():
            return {r.name: r.pid for r in local.load(state.dir).replicas}

        def kill_one():
            downloaders.stop()                          # a download cut by the kill is not one the server lost
            r = local.load(state.dir).replica("r1")
            os.kill(r.pid, signal.SIGKILL)
            return r.name

        downloaders = Downloaders(state.url, n=DOWNLOADERS).start()
        try:
            r = ramp.run(state.url, pids, levels=QUICK_LEVELS if quick else LEVELS,
                         hold_s=QUICK_HOLD_S if quick else HOLD_S, fault=kill_one, fault_hold_s=15)
        finally:
            downloaders.stop()
        downloads = downloaders.figures()
        local.restart("r1", state.dir)                  # the ramp killed it: the class is whole again
        out.update(answers(state, QUICK_ANSWER_STUDENTS if quick else ANSWER_STUDENTS))
    finally:
        local.down(state.dir)
    out.update(_ramp_figures(r, downloads))
    return out


def _ramp_figures(r: dict, downloads: dict) -> dict:
    """The bench's class_* keys from serve.ramp.run's figures and the downloaders' tally."""
    cpu_ms = r["server_cpu_ms_per_rerun"]
    out = {
        "class_replicas": REPLICAS, "class_sessions": r["sessions"], "class_rerun_p50_ms": r["rerun_p50_ms"],
        "class_rerun_p95_ms": r["rerun_p95_ms"], "class_rerun_p99_ms": r["rerun_p99_ms"],
        "class_reruns": r["reruns"], "class_open_p95_ms": r["open_p95_ms"],
        "class_errors": r["errors"], "class_crosstalk": r["crosstalk"],
        "class_mb_per_session": r["mb_per_session"], "class_replica_rss_mb_max": max(r["rss_mb"].values(), default=0),
        "class_sessions_at_p95_2s": r["sessions_at_p95_target"], "class_failover_s": r["failover_s"],
        "class_fault_errors_on_others": len(r["fault_errors_on_others"] or []),
        "class_downloads": downloads["clicks"], "class_downloads_lost": downloads["lost"],
        "class_cpu_ms_per_rerun": cpu_ms,
        # a fully used core, students rerunning every 20 s on average (10-30 s): 20 s of reruns per student-period
        "class_sessions_per_core_cpu_bound": 20_000 / cpu_ms if cpu_ms else None,
        "class_client_cpu_s": r["client_cpu_s"],
        "class_load_average_1m": os.getloadavg()[0]}
    for row in r["levels"]:
        out[f"class_rerun_p95_ms_n{row['sessions']}"] = row["p95_ms"]
        out[f"class_cpu_ms_per_rerun_n{row['sessions']}"] = row["server_cpu_ms_per_rerun"]
    if r["error_examples"] or r["crosstalk_examples"]:
        out["class_problem_examples"] = " | ".join(r["error_examples"] + r["crosstalk_examples"])
    if downloads["examples"]:
        out["class_download_problem_examples"] = " | ".join(downloads["examples"])
    return out
