"""Run every benchmark module in bench/ (each defines `run(quick: bool) -> dict` of flat figures) and
print one flat JSON object (--json) or a readable table. Figures compare side by side in one run."""
import argparse
import importlib
import json
import pkgutil
import platform
import sys
import time

import bench


def modules() -> list[str]:
    return sorted(m.name for m in pkgutil.iter_modules(bench.__path__) if not m.name.startswith("_"))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--json", action="store_true", help="print one flat JSON object")
    p.add_argument("--quick", action="store_true", help="fewer repeats and sizes (a short run)")
    p.add_argument("--only", nargs="*", default=None, help="only these benchmark modules")
    args = p.parse_args(argv)
    unknown = sorted(set(args.only or ()) - set(modules()))
    if unknown:
        p.error(f"no benchmark module named {', '.join(unknown)}; the modules are: {', '.join(modules())}")
    figures: dict = {"machine": platform.machine(), "python": platform.python_version()}
    for name in modules():
        if args.only and name not in args.only:
            continue
        t0 = time.perf_counter()
        print(f"[bench] {name} ...", file=sys.stderr, flush=True)
        figures.update(importlib.import_module(f"bench.{name}").run(quick=args.quick))
        print(f"[bench] {name} done in {time.perf_counter() - t0:.1f}s", file=sys.stderr, flush=True)
    if args.json:
        print(json.dumps(figures, indent=1))
        return
    width = max(map(len, figures))
    for k, v in figures.items():
        print(f"{k:<{width}}  {v:.4g}" if isinstance(v, float) else f"{k:<{width}}  {v}")


if __name__ == "__main__":
    main()
