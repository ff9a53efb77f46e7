"""The results file: resume keys, a crash's half-written last line, damage mid-file, one writer."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from lcel_agent.batch._store import ResultStore, result_key
from lcel_agent.batch.errors import BatchStoreError


def line(item_id: object) -> str:
    return json.dumps({"id": item_id, "input": f"task {item_id}", "result": {"output": "ok"}})


def test_a_new_file_is_created_with_its_folder_and_written_line_by_line(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "results.jsonl"
    with ResultStore(path) as store:
        assert store.done == set() and store.repaired == 0
        store.append(line(1))
        store.append(line("b"))
        # Flushed as written: a reader sees both lines before the store is closed.
        assert path.read_text().splitlines() == [line(1), line("b")]
    assert store.written == 2


def test_opening_again_reads_the_ids_already_done(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text(line(1) + "\n" + line("1") + "\n\n" + line("x") + "\n")
    with ResultStore(path) as store:
        # 1 and "1" are different ids, as in the JSON; a blank line is harmless.
        assert store.done == {"1", '"1"', '"x"'}
        assert "1" in store and '"y"' not in store
        assert store.repaired == 0


@pytest.mark.parametrize(
    "tail",
    [
        line(3)[:25],  # the write stopped mid-line
        line(3)[:-1] + "\n",  # a truncated line that still got a newline
        "\x00" * 40,  # the file's size grew but its data never reached the disk
        json.dumps({"id": 3, "input": "x"}) + "\n",  # no result: not a results line
    ],
)
def test_a_broken_last_line_is_cut_off_and_never_read_as_a_result(
    tmp_path: Path, tail: str
) -> None:
    path = tmp_path / "r.jsonl"
    good = line(1) + "\n" + line(2) + "\n"
    path.write_text(good + tail)
    with ResultStore(path) as store:
        assert store.done == {"1", "2"}
        assert store.repaired == len(tail.encode())
        store.append(line(3))
    assert path.read_text() == good + line(3) + "\n"


def test_a_complete_last_line_missing_only_its_newline_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text(line(1) + "\n" + line(2))
    with ResultStore(path) as store:
        assert store.done == {"1", "2"} and store.repaired == 0
        store.append(line(3))
    assert path.read_text().splitlines() == [line(1), line(2), line(3)]


def test_a_damaged_line_before_the_last_is_refused_and_the_file_left_alone(
    tmp_path: Path,
) -> None:
    path = tmp_path / "r.jsonl"
    text = line(1) + "\n" + "garbage\n" + line(3) + "\n"
    path.write_text(text)
    with pytest.raises(BatchStoreError, match=r"line 2 is not a result line"):
        ResultStore(path).open()
    assert path.read_text() == text
    # and the refusal released the file: a fixed file opens at once
    path.write_text(line(1) + "\n" + line(3) + "\n")
    with ResultStore(path) as store:
        assert store.done == {"1", "3"}


def test_two_jobs_cannot_write_one_file(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    with ResultStore(path), pytest.raises(BatchStoreError, match="another batch job"):
        ResultStore(path).open()
    with ResultStore(path):  # free again once the first job closed it
        pass


def test_fsync_runs_at_a_bounded_interval_and_on_close(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced: list[int] = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real(fd)))
    now = [100.0]
    store = ResultStore(tmp_path / "r.jsonl", fsync_every=1.0, clock=lambda: now[0]).open()
    store.append(line(1))
    now[0] += 0.4
    store.append(line(2))
    assert synced == []  # within the interval: flushed, not yet fsync'd
    now[0] += 0.7
    store.append(line(3))
    assert len(synced) == 1
    store.sync()  # nothing new: no fsync
    assert len(synced) == 1
    store.append(line(4))
    store.close()
    assert len(synced) == 2
    store.close()  # twice is harmless


def test_result_key_accepts_only_complete_result_lines() -> None:
    assert result_key(line(7).encode()) == "7"
    assert result_key(line("七").encode()) == '"七"'
    for bad in (b"", b"[]", b'{"id": true, "result": {}}', b'{"id": 1, "result": 3}', b"{"):
        assert result_key(bad) is None
