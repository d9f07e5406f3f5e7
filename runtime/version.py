"""The Streamlit release the runtime's patches were written for. They replace private methods (AppSession,
SessionState, MediaFileManager, DeferredFileHandler) and read private fields that any release may rename, so on
another release the app refuses to start, naming both versions, rather than run half-patched."""
import streamlit

SUPPORTED = "1.67"          # major.minor: every 1.67.x release (requirements.txt pins one of them)


class UnsupportedStreamlit(RuntimeError):
    """The installed Streamlit is not the release the runtime's patches were written for."""


def release(version: str) -> str:
    """A version's major.minor: "1.67.0" -> "1.67"."""
    return ".".join(version.split(".")[:2])


def check(version: str | None = None) -> None:
    """Raise UnsupportedStreamlit unless `version` (default: the installed Streamlit's) is a SUPPORTED release."""
    found = streamlit.__version__ if version is None else version
    if release(found) != SUPPORTED:
        raise UnsupportedStreamlit(
            f"Attention Lab cannot start: its runtime (runtime/) patches private internals of Streamlit {SUPPORTED}.x, "
            f"but Streamlit {found} is installed. Install the pinned release (pip install -r requirements.txt), or "
            f"check runtime/ against Streamlit {found} and then change runtime/version.py's SUPPORTED.")
