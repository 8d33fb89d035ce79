"""Which torch the findings assume, and what each measured release does for each claim.

Dynamo changes between releases (on 2.13 `assert` on tensor data stopped breaking and
`fullgraph=True` started capturing `.item()`), so the rules' statements are those of
one release (``BASE_RELEASE``, where they were written and the fixture tests check
them), and ``rules/claims/<release>.json`` (written by bench/claims.py) holds what every
other measured release did on the same fixtures. A finding whose claim behaves
differently on the assumed release changes its modes and says so; one that does not
break there is dropped; a candidate the rules report with no modes (it broke on older
releases only) is kept only where the assumed release breaks on it.

The assumed release is, in order: ``--torch-version`` / ``torch-version`` in
``[tool.compilelint]``; the installed torch's version, read from package metadata
(never by importing torch); else the newest measured release. A release between or
outside the measured ones gets the nearest measured one's claims, marked as such.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from functools import lru_cache
from importlib import metadata, resources
from typing import Any

from compilelint.findings import Finding, Mode

BASE_RELEASE = "2.13"
_RELEASE = re.compile(r"^\s*(\d+)\.(\d+)(?:\.\d+)?(?:[.+\-a-z0-9]*)\s*$", re.I)
MODES = (Mode.DEFAULT, Mode.FULLGRAPH)
_MODE_NAMES = {Mode.DEFAULT: "the default mode", Mode.FULLGRAPH: "`fullgraph=True`", Mode.DYNAMIC: "`dynamic=True`",
               Mode.INDUCTOR: "Inductor"}


def parse_release(version: str) -> tuple[int, int]:
    """``"2.11.0+cu130"`` -> ``(2, 11)``; a ValueError names what was wrong."""
    match = _RELEASE.match(version)
    if not match:
        raise ValueError(f"{version!r} is not a torch version like 2.11 or 2.13.0")
    return int(match.group(1)), int(match.group(2))


def release_name(version: str) -> str:
    major, minor = parse_release(version)
    return f"{major}.{minor}"


@dataclass(frozen=True)
class Claim:
    """What one release did on every fixture site of a claim."""

    code: str
    sites: int
    broke: dict[str, int]  # mode name -> sites that broke in that mode
    gb_ids: tuple[str, ...]
    fullgraph_unknown: int = 0  # sites a fullgraph run never reached (it stopped earlier)

    def measured(self, mode: Mode) -> int:
        return self.sites - (self.fullgraph_unknown if mode is Mode.FULLGRAPH else 0)

    def modes(self, coded: tuple[Mode, ...]) -> tuple[Mode, ...]:
        """Modes that broke on every measured site; where only some did, or none could be
        measured, the rule's own statement for the finding."""
        out = []
        for mode in MODES:
            count, measured = self.broke.get(mode.value, 0), self.measured(mode)
            if (measured and count == measured) or ((not measured or 0 < count < measured) and mode in coded):
                out.append(mode)
        if Mode.DYNAMIC in coded and Mode.DEFAULT not in out:
            # a dynamic=True-only claim: kept where dynamic=True broke on some of its sites
            # (a release that also breaks in the default mode says so by the modes above)
            if self.broke.get(Mode.DYNAMIC.value, 0) > 0:
                out.append(Mode.DYNAMIC)
        return tuple(out)

    def signature(self) -> tuple[tuple[str, float], ...]:
        return tuple((m.value, self.broke.get(m.value, 0) / max(self.measured(m), 1)) for m in MODES)


@dataclass(frozen=True)
class ReleaseClaims:
    release: str
    torch: str
    measured_on: str
    claims: dict[str, Claim]
    # recompile claims: measured recompiles of each counted fixture target, per claim
    recompiles: dict[str, tuple[int, ...]]


def _claim_files() -> dict[str, Any]:
    folder = resources.files("compilelint.rules") / "claims"
    files = {}
    if folder.is_dir():
        for entry in folder.iterdir():
            if entry.name.endswith(".json"):
                files[entry.name[: -len(".json")]] = entry
    return files


@lru_cache(maxsize=1)
def measured_releases() -> tuple[str, ...]:
    """The releases with a claims file, oldest first."""
    return tuple(sorted(_claim_files(), key=parse_release))


@lru_cache(maxsize=None)
def load_claims(release: str) -> ReleaseClaims:
    data = json.loads(_claim_files()[release].read_text(encoding="utf-8"))
    claims = {
        name: Claim(
            code=record["code"],
            sites=record["sites"],
            broke={mode: record.get(mode, 0) for mode in ("default", "fullgraph", "dynamic")},
            gb_ids=tuple(record.get("gb_ids", ())),
            fullgraph_unknown=record.get("fullgraph_unknown", 0),
        )
        for name, record in data["claims"].items()
    }
    recompiles: dict[str, list[int]] = {}
    for _, count in sorted(data.get("counts", {}).items()):
        for claim in count.get("claims", ()):
            if isinstance(count["measured"], int):
                recompiles.setdefault(claim, []).append(count["measured"])
    return ReleaseClaims(release, data["torch"], data.get("measured_on", ""), claims,
                         {claim: tuple(values) for claim, values in recompiles.items()})


@dataclass(frozen=True)
class Assumption:
    """The release findings are judged against, and why."""

    release: str  # a measured release whose claims apply
    requested: str | None  # what the setting or the installed torch said
    source: str  # "setting", "installed" or "default"
    nearest: bool = False  # ``requested`` was not measured: ``release`` is the nearest

    def describe(self) -> str:
        why = {
            "setting": f"torch-version = {self.requested}",
            "installed": f"installed torch {self.requested}",
            "default": "no torch installed and no torch-version set: the newest measured release",
        }[self.source]
        near = f"; {self.requested} was not measured, using the nearest measured release" if self.nearest else ""
        return f"torch {self.release} ({why}{near})"

    def to_json(self) -> dict[str, Any]:
        return {"release": self.release, "requested": self.requested, "source": self.source, "nearest": self.nearest}


@lru_cache(maxsize=1)
def installed_torch() -> str | None:
    try:
        return metadata.version("torch")
    except metadata.PackageNotFoundError:
        return None


def nearest_release(version: str, releases: tuple[str, ...]) -> str:
    wanted = parse_release(version)

    def distance(release: str) -> tuple[int, int]:
        major, minor = parse_release(release)
        # prefer the older of two equally near releases: its behaviour is the more conservative
        return (abs((major - wanted[0]) * 100 + minor - wanted[1]), major * 100 + minor)

    return min(releases, key=distance)


@lru_cache(maxsize=16)
def assume(setting: str | None) -> Assumption:
    releases = measured_releases() or (BASE_RELEASE,)
    requested = setting or installed_torch()
    if requested is None:
        return Assumption(releases[-1], None, "default")
    source = "setting" if setting else "installed"
    release = nearest_release(requested, releases)
    return Assumption(release, requested, source, nearest=release_name(requested) != release)


def for_release(findings: tuple[Finding, ...], assumption: Assumption) -> tuple[Finding, ...]:
    """The findings as the assumed release makes them: modes, GB ids, message, or dropped."""
    if not findings:
        return findings
    releases = measured_releases()
    target = load_claims(assumption.release) if assumption.release in releases else None
    base = load_claims(BASE_RELEASE) if BASE_RELEASE in releases else None
    kept = []
    for finding in findings:
        if finding.code.startswith("CL2"):
            changed = _recompiles_on_release(
                finding,
                base.recompiles.get(finding.claim) if base else None,
                target.recompiles.get(finding.claim) if target else None,
                assumption.release,
            )
        else:
            changed = _on_release(
                finding,
                base.claims.get(finding.claim) if base else None,
                target.claims.get(finding.claim) if target else None,
                assumption.release,
            )
        if changed is not None:
            kept.append(replace(changed, torch_release=assumption.release, torch_reason=assumption.describe()))
    return tuple(kept)


def _recompiles_on_release(
    finding: Finding, base: tuple[int, ...] | None, target: tuple[int, ...] | None, release: str
) -> Finding | None:
    """A recompile finding is dropped where its fixtures never recompiled on the release."""
    if target is None or base is None or target == base:
        return finding
    if not any(target):
        return None
    measured = ", ".join(map(str, target))
    return replace(finding, message=finding.message + f" [measured on torch {release}: {measured} recompiles "
                   f"on the fixtures that made {', '.join(map(str, base))} on torch {BASE_RELEASE}]")


def _on_release(finding: Finding, base: Claim | None, target: Claim | None, release: str) -> Finding | None:
    if not finding.code.startswith("CL1"):
        return finding  # recompile rules state no modes; their claims are recompile counts
    candidate = not finding.breaks  # reported for the releases where it breaks, not the base
    if target is None:
        return None if candidate else finding
    # a dynamic=True-only finding is judged by the release's dynamic=True runs, which the
    # signature leaves out
    same = base is not None and base.signature() == target.signature() and not candidate
    same = same and finding.breaks != (Mode.DYNAMIC,)
    modes = finding.breaks if same else target.modes(finding.breaks)
    if not modes:
        return None
    gb_ids, message = _gb_ids_on_release(finding, base, target)
    if modes != finding.breaks:
        said = " and ".join(_MODE_NAMES[m] for m in modes)
        message += f" [measured on torch {release}: breaks in {said}]"
    if (modes, gb_ids, message) == (finding.breaks, finding.gb_ids, finding.message):
        return finding
    return replace(finding, breaks=modes, gb_ids=gb_ids, message=message)


def _gb_ids_on_release(finding: Finding, base: Claim | None, target: Claim) -> tuple[tuple[str, ...], str]:
    """The GB ids the release reports. A claim with one id on each side renames it in the
    message too; a claim over several functions adds the release's other ids."""
    if not target.gb_ids or (base is not None and set(base.gb_ids) == set(target.gb_ids)):
        return finding.gb_ids, finding.message
    if len(finding.gb_ids) == 1 and len(target.gb_ids) == 1 and base is not None and len(base.gb_ids) == 1:
        old, new = finding.gb_ids[0], target.gb_ids[0]
        return (new,), finding.message.replace(old, new)
    if not finding.gb_ids:
        return target.gb_ids, finding.message
    extra = tuple(gb for gb in target.gb_ids if base is None or gb not in base.gb_ids)
    return tuple(dict.fromkeys(finding.gb_ids + extra)), finding.message


def release_table(codes: tuple[str, ...] | None = None, changed_only: bool = False) -> str:
    """Markdown: for each claim, what each measured release does (D default, F fullgraph,
    Y dynamic=True; lower case where only some fixture sites broke), then its GB ids;
    recompile claims give the recompiles of each counted fixture. ``changed_only``: only
    the claims whose behaviour differs between releases."""
    releases = measured_releases()
    loaded = {r: load_claims(r) for r in releases}
    names = sorted({c for r in loaded.values() for c in r.claims if codes is None or r.claims[c].code in codes})
    counted = sorted({c for r in loaded.values() for c in r.recompiles
                      if codes is None or c.split(":")[0] in codes})
    lines = ["| claim | " + " | ".join(releases) + " |",
             "|---|" + "---|" * len(releases)]
    rows = [(name, [_cell(loaded[r].claims.get(name)) for r in releases]) for name in names]
    rows += [(name, [", ".join(map(str, loaded[r].recompiles[name])) + " recompiles" if name in loaded[r].recompiles
                     else "not measured" for r in releases]) for name in counted]
    for name, cells in rows:
        if not changed_only or len(set(cells)) > 1:
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def release_list(codes: tuple[str, ...]) -> str:
    """The same facts as ``release_table`` as a Markdown list (it wraps on any terminal):
    one item per claim, one release per line where releases differ."""
    table = release_table(codes).splitlines()
    releases = [cell.strip() for cell in table[0].strip("|").split("|")[1:]]
    items = []
    for row in table[2:]:
        name, *cells = [cell.strip() for cell in row.strip("|").split("|")]
        if len(set(cells)) == 1:
            items.append(f"- `{name}`: {cells[0]} on every measured release")
        else:
            items.append(f"- `{name}`:" + "".join(f"\n  - {r}: {c}" for r, c in zip(releases, cells)))
    return "\n".join(items)


def measured_builds() -> str:
    """``2.11.0+cu130 (H200 ...), 2.13.0+cpu (CPU), ...``: what each claims file measured."""
    return ", ".join(f"{load_claims(r).torch} ({load_claims(r).measured_on})" for r in measured_releases())


def _cell(claim: Claim | None) -> str:
    if claim is None:
        return "not measured"
    letters = []
    for mode, letter in ((Mode.DEFAULT, "D"), (Mode.FULLGRAPH, "F"), (None, "Y")):
        count = claim.broke.get(mode.value if mode else "dynamic", 0)
        measured = claim.measured(mode) if mode else claim.sites
        if count:
            letters.append(letter if count == measured else letter.lower())
        elif mode is Mode.FULLGRAPH and not measured:
            letters.append("F?")  # every fullgraph run stopped at an earlier break
    ids = ", ".join(claim.gb_ids)
    return ("".join(letters) or "no break") + (f" {ids}" if ids else "")
