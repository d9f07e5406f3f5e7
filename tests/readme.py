"""The README's two commands for a fresh machine, read from the README itself (standard library only: .ci/run
calls this before anything is installed). `python -m tests.readme app|test [install|run]` prints a command or
its part: "install" is every step before the last, "run" the last step."""
import re
import sys
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"
_FENCE = re.compile(r"```bash\n(.*?)\n```", re.S)


def commands(readme: Path = README) -> dict[str, str]:
    """{"app": the first fenced command, "test": the second}: the two the README opens with."""
    found = _FENCE.findall(readme.read_text(encoding="utf-8"))
    if len(found) < 2:
        raise ValueError(f"{readme} does not open with two ```bash blocks")
    return {"app": found[0].strip(), "test": found[1].strip()}


def steps(command: str) -> list[str]:
    """The command's steps, split at each top-level ` && ` (not inside parentheses)."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(command):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth == 0 and command.startswith(" && ", i):
            out.append(command[start:i].strip())
            start = i + 4
    return out + [command[start:].strip()]


def part(which: str, section: str | None = None) -> str:
    """The whole command, its install steps (all but the last, joined by &&) or its last step."""
    all_steps = steps(commands()[which])
    if section == "install":
        return " && ".join(all_steps[:-1])
    if section == "run":
        return all_steps[-1]
    return commands()[which]


if __name__ == "__main__":
    print(part(*sys.argv[1:3]))
