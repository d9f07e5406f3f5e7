"""How the commands fail (`python -m model.coref`, `model.evaluate`, `model.tokenize`): one line `error: ...` on
stderr and exit status 2, never a traceback; usage errors too (argparse would print its usage line first)."""
import argparse
import sys
from typing import NoReturn


def fail(message) -> NoReturn:
    """Print `error: <message>` as one line on stderr and exit with status 2."""
    print("error: " + str(message).replace("\n", " "), file=sys.stderr)
    raise SystemExit(2)


class Parser(argparse.ArgumentParser):
    """argparse whose usage errors are one line (`error: ... (see --help)`), status 2."""

    def error(self, message: str) -> NoReturn:
        fail(f"{message} (see --help)")
