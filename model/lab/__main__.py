"""Train a training-lab lesson headless: `python -m model.lab LESSON [--json] [--steps N] [--out DIR] [--resume]`.

Prints the run's figures (for the induction lesson: induction_score_final, the best single head; induction_step,
the first snapshot with a score over 0.5; copy_acc_final, next-token accuracy on the second copy of a repeated
span; seconds; loss_final) and, with --json, every snapshot's per-head scores and the crossing steps. With --stream
it prints one JSON line per snapshot and progress report as it goes (what the page's job reads). One CPU thread,
at a lower priority than the server, so a run leaves the other sessions responsive."""
import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

from model.cli import Parser, fail


def exit_with_parent(every_s: float = 1.0) -> None:
    """Run as a job (--stream): end this process when the one that started it (the server) is gone, so a server
    stopped without cancelling its jobs leaves no training behind."""
    parent = os.getppid()

    def watch():
        while os.getppid() == parent:
            time.sleep(every_s)
        os._exit(3)
    threading.Thread(target=watch, daemon=True, name="parent-watch").start()


def _parser() -> Parser:
    """The command line: a lesson and the settings that override its own."""
    from model.lab import lessons
    p = Parser(description=__doc__.split("\n")[0])
    p.add_argument("lesson", choices=sorted(lessons.LESSONS))
    p.add_argument("--json", action="store_true", help="print one JSON object: figures, snapshots, crossings")
    p.add_argument("--stream", action="store_true", help="one JSON line per snapshot and progress report")
    p.add_argument("--out", help="run folder (checkpoints, snapshots, the trained model); default a temporary one")
    p.add_argument("--resume", action="store_true", help="continue from the run folder's checkpoint")
    for key in ("n_layers", "n_heads", "d_model", "steps", "seed"):
        p.add_argument(f"--{key.replace('_', '-')}", dest=key, type=int)
    p.add_argument("--lr", type=float)
    p.add_argument("--positions", choices=("on", "off"))
    p.add_argument("--mask", choices=sorted(lessons.MASKS))
    p.add_argument("--nice", type=int, default=10, help="lower this process's priority by this much (0: not)")
    return p


def run_folder(out: str) -> str:
    """--out as a folder this process can write a run into (made if missing); one error line otherwise (a file,
    the null device, a folder of /proc)."""
    folder = Path(out)
    if folder.exists() and not folder.is_dir():
        fail(f"--out {out}: exists and is not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as e:
        fail(f"--out {out}: a run folder cannot be written there ({e.strerror or e})")
    return out


def main(argv=None):
    from model.lab import lessons
    args = _parser().parse_args(argv)
    if args.out is not None:
        args.out = run_folder(args.out)

    if args.stream:
        exit_with_parent()
    import torch
    torch.set_num_threads(1)
    if args.nice:
        os.nice(args.nice)
    from model.lab import run
    lesson = lessons.LESSONS[args.lesson]
    changes = {k: getattr(args, k) for k in ("n_layers", "n_heads", "d_model", "steps", "seed", "lr", "mask")
               if getattr(args, k) is not None}
    if args.positions:
        changes["positions"] = args.positions == "on"
    settings = lesson.replace(**changes)
    if args.resume:
        if not args.out or run.saved_state(args.out) is None:
            fail("--resume needs --out with a run folder that holds a checkpoint")
        settings = lessons.Settings(**run.saved_state(args.out)["settings"])
    try:
        lessons.check(lesson, settings)
    except lessons.SettingsError as e:
        fail(e)

    def emit(row: dict):
        if args.stream:
            print(json.dumps(row), flush=True)
        elif row["event"] == "snapshot" and not args.json:
            print(f"step {row['step']:5d}  loss {row['loss'] if row['loss'] is not None else '-':>7}  "
                  f"{lesson.metric_key.removesuffix('_final')} {row['task']:.3f}  " +
                  "  ".join(f"{k} {max(max(r) for r in v):.2f}" for k, v in row["scores"].items()),
                  file=sys.stderr, flush=True)

    with tempfile.TemporaryDirectory(prefix="attention-lab-") as tmp:
        folder = args.out or tmp
        figures = run.train(lesson, settings, folder, resume=args.resume, emit=emit)
        history = run.saved_state(folder)["snapshots"]
    if args.stream:
        print(json.dumps({"event": "done", **figures}), flush=True)
    elif args.json:
        crossing = {k: figures.get(f"{k}_step") for k in lesson.thresholds}
        json.dump({**figures, "settings": settings.to_dict(), "thresholds": lesson.thresholds,
                   "crossings": crossing, "snapshots": [{k: s[k] for k in ("step", "loss", "task", "scores")}
                                                        for s in history]}, sys.stdout)
        sys.stdout.write("\n")
    else:
        for k, v in figures.items():
            print(f"{k:28s} {v}")


if __name__ == "__main__":
    main()
