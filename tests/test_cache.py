"""The results cache: a warm run answers from it, and anything a result depends on changing
makes that file be linted again."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from compilelint import cache as cache_module
from compilelint.config import Settings
from compilelint.engine import lint_files
from compilelint.files import discover
from compilelint.findings import FileResult
from test_project import PROJECT, _write

DATA = Path(__file__).parent / "data"
Found = list[tuple[str, int, str]]


def lint(root: Path, settings: Settings = Settings(), folder: str = "cache") -> tuple[Found, int, int]:
    """Findings (relative paths), cache hits and misses of one run over ``root``."""
    store = cache_module.ResultCache(str(root / folder))
    files = discover([str(root / "src")], lambda _: settings).files
    results = lint_files(files, jobs=1, cache=store)
    found = [(Path(r.path).relative_to(root / "src").as_posix(), f.line, f.code) for r in results for f in r.findings]
    return found, store.hits, store.misses


@pytest.fixture
def src(tmp_path: Path) -> Path:
    _write(tmp_path / "src", PROJECT)
    shutil.copy(DATA / "basic.py", tmp_path / "src" / "basic.py")
    return tmp_path / "src"


def test_a_warm_run_gives_the_same_findings_from_the_cache(src: Path) -> None:
    cold, hits, misses = lint(src.parent)
    # 6 files, 3 again with the entry points model.py gives them, and 3 again with what the
    # functions they entered return (model.py sees the tensor helper() returns)
    assert (hits, misses) == (0, 6 + 3 + 3)
    assert (src.parent / "cache" / "CACHEDIR.TAG").is_file()
    assert (src.parent / "cache" / ".gitignore").read_text().endswith("*\n")
    assert lint(src.parent) == (cold, 12, 0)
    assert lint(src.parent, folder="other")[0] == cold  # and uncached gives the same


def test_an_edited_file_is_linted_again(src: Path) -> None:
    lint(src.parent)
    path = src / "basic.py"
    path.write_text(path.read_text().replace("print(y)", "pass"))
    found, hits, misses = lint(src.parent)
    assert ("basic.py", 18, "CL101") not in found and misses == 1


def test_an_imported_helper_follows_its_callers(src: Path) -> None:
    """The helper's findings come from the caller's compiled region: the caller changing is
    a change of the helper's key (its entry points), and the helper changing is its own."""
    assert ("pkg/utils.py", 3, "CL101") in lint(src.parent)[0]
    model = src / "pkg/sub/model.py"
    model.write_text(model.read_text().replace(" + helper(x, 2.0)", ""))
    assert [f for f in lint(src.parent)[0] if f[0] == "pkg/utils.py"] == []
    model.write_text(PROJECT["pkg/sub/model.py"])
    assert ("pkg/utils.py", 3, "CL101") in lint(src.parent)[0]
    utils = src / "pkg/utils.py"
    utils.write_text(utils.read_text().replace("    print('helper')\n", "    print('helper')\n    print('again')\n"))
    assert [f for f in lint(src.parent)[0] if f[0] == "pkg/utils.py"] == [
        ("pkg/utils.py", 3, "CL101"), ("pkg/utils.py", 4, "CL101"), ("pkg/utils.py", 5, "CL103")]  # fmt: skip


def test_settings_are_part_of_the_key(src: Path) -> None:
    from compilelint.config import Selection

    lint(src.parent)
    only_103 = Settings(layers=(Selection(select=("CL103",)),))
    found, hits, _ = lint(src.parent, only_103)
    assert {code for _, _, code in found} == {"CL103"} and hits == 0


def test_a_cache_anyone_can_write_is_not_read(src: Path) -> None:
    lint(src.parent)
    (src.parent / "cache").chmod(0o777)
    assert lint(src.parent)[1] == 0


def test_the_cache_survives_a_torn_file(src: Path) -> None:
    first = lint(src.parent)[0]
    (src.parent / "cache" / f"results-v{cache_module.FORMAT}.pickle").write_bytes(b"\x80\x05garbage")
    assert lint(src.parent)[0] == first
    assert lint(src.parent)[1:] == (12, 0)


def test_other_dependencies_are_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A result naming a dependency (an installed package's version, say) is recomputed
    when that dependency's fingerprint changes."""
    versions = {"pkg": "1.0"}
    monkeypatch.setitem(cache_module.DEPENDENCY_KINDS, "package", versions.get)
    (tmp_path / "m.py").write_text("import torch\n")

    def hits() -> int:
        store = cache_module.ResultCache(str(tmp_path / "c"))
        keep = store.store
        monkeypatch.setattr(store, "store", lambda key, r: keep(key, FileResult(r.path, r.findings, r.skipped, r.calls, ("package:pkg",))))
        lint_files([(str(tmp_path / "m.py"), Settings())], jobs=1, cache=store)
        return store.hits

    assert (hits(), hits()) == (0, 1)
    versions["pkg"] = "2.0"
    assert hits() == 0


def test_an_edit_that_keeps_the_size_is_seen(src: Path) -> None:
    """Unchanged old files are not read again (their stat signature is compared), and an
    edit that keeps the size still changes the signature (the mtime)."""
    import os

    path = src / "basic.py"
    old = os.stat(path)
    os.utime(path, ns=(old.st_atime_ns, old.st_mtime_ns - 10**10))  # an old file: its stat is kept
    lint(src.parent)
    text = path.read_text()
    path.write_text(text.replace("print(y)", "print(z)"))
    found, _, misses = lint(src.parent)
    assert misses >= 1 and ("basic.py", 18, "CL101") in found
