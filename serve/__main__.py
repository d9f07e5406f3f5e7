"""python -m serve up|down|status|drain|ready|restart: the class setup on one machine (see serve/__init__.py);
`restart store` restarts the class's answer store (Redis); python -m serve warm: warm one running replica (the
Kubernetes startup probe)."""
import argparse
import json
import sys
from pathlib import Path

from serve import local, replicas


def _parser() -> argparse.ArgumentParser:
    """The subcommands and their options."""
    p = argparse.ArgumentParser(prog="python -m serve", description=__doc__)
    p.add_argument("--state", type=Path, default=local.STATE_DIR, help="folder of the state file and logs")
    sub = p.add_subparsers(dest="cmd", required=True)
    u = sub.add_parser("up", help="start N warmed replicas and HAProxy in front of them (loopback)")
    u.add_argument("--replicas", type=int, default=local.default_replicas(),
                   help=f"app processes (default: two per core, {local.default_replicas()} here)")
    u.add_argument("--port", type=int, default=8500, help="the balancer's port; replicas take the next ones")
    u.add_argument("--first-replica-port", type=int, default=None)
    u.add_argument("--bind", default=local.HOST,
                   help="the balancer's address (default 127.0.0.1; 0.0.0.0 lets a class's browsers in)")
    u.add_argument("--public-url", default=None, metavar="URL",
                   help="the address students' phones reach, used in the class's join link and QR code, such as "
                        "http://192.168.1.20:8500 (default: the balancer's address)")
    u.add_argument("--frame-ancestor", action="append", default=[], metavar="URL",
                   help="a site allowed to show the app in a frame, such as https://course.example.org (repeat for "
                        "more; default: none may)")
    u.add_argument("--warm", nargs="*", default=None, metavar="PAGE",
                   help="pages each replica opens before it takes students (default: home and explorer)")
    sub.add_parser("down", help="stop the balancer and every replica")
    s = sub.add_parser("status", help="the balancer and each replica: state, connections, memory")
    s.add_argument("--json", action="store_true")
    for name, text in (("drain", "no new students for this replica (its own keep their sessions)"),
                       ("ready", "the replica takes new students again")):
        sub.add_parser(name, help=text).add_argument("replica", help="r1, r2, ...")
    r = sub.add_parser("restart", help="drain a replica, restart and warm it, put it back; the others untouched "
                                       "(`restart store`: the class's answer store, its answers kept)")
    r.add_argument("replica", help="r1, r2, ... or store")
    r.add_argument("--wait", type=float, default=0, help="seconds to let its students leave before the restart")
    w = sub.add_parser("warm", help="wait for one replica's health, then open the warm-up pages (exit 0 when done)")
    w.add_argument("--url", default="http://127.0.0.1:8501")
    w.add_argument("--timeout", type=float, default=100, help="seconds to wait for its health")
    return p


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.cmd == "warm":
            replicas.wait_healthy(args.url, timeout=args.timeout)
            problems = replicas.warm(args.url)
            if problems:
                raise RuntimeError("warm-up: " + "; ".join(problems))
            print(f"{args.url} warm")
        elif args.cmd == "up":
            kw = {} if args.warm is None else {"warm_pages": tuple("" if w == "home" else w for w in args.warm)}
            state = local.up(args.replicas, args.port, args.state, args.first_replica_port, bind=args.bind,
                             public_url=args.public_url, frame_ancestors=tuple(args.frame_ancestor), **kw)
            print(f"class up: {state.url}  ({len(state.replicas)} replicas on ports "
                  f"{', '.join(str(x.port) for x in state.replicas)}; answer store {state.store_url}; students "
                  f"join at {state.public_url}; logs in {state.dir})")
        elif args.cmd == "down":
            print("class down" if local.down(args.state) else "no class was up")
        elif args.cmd == "status":
            st = local.status(args.state)
            if args.json:
                print(json.dumps(st, indent=1))
            else:
                print(f"{st['url']}  balancer {'up' if st['balancer_alive'] else 'DOWN'}  students join at "
                      f"{st['public_url']}")
                print(f"  store  {st['store']['url']}  pid {st['store']['pid']}  "
                      f"{'up' if st['store']['alive'] else 'DOWN'}")
                for row in st["replicas"]:
                    print(f"  {row['name']}  port {row['port']}  pid {row['pid']}  {row['status']:<6} "
                          f"healthy={row['healthy']}  connections {row['scur']} (total {row['stot']})  "
                          f"rss {row['rss_mb']} MB")
        elif args.cmd in ("drain", "ready"):
            getattr(local, args.cmd)(args.replica, args.state)
            print(f"{args.replica}: {args.cmd}")
        elif args.cmd == "restart" and args.replica == "store":
            print(f"store restarted: pid {local.restart_store(args.state)}, its answers read back")
        elif args.cmd == "restart":
            new = local.restart(args.replica, args.state, wait=args.wait)
            print(f"{new.name} restarted: pid {new.pid}, port {new.port}, ready")
    except (RuntimeError, KeyError, ValueError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
