"""``--plot FILE``: eager against compiled latency per target, as an image (PNG, SVG, PDF).

One or more reports (``--format json``) in, one bar chart out: for each target, its
compiled time as a fraction of eager (a bar left of the dashed line at 1 pays off), with
both times in milliseconds and the speed-up written beside it. Given
several reports (before and after fixes), a target's bars from each report stand next
to each other, labelled with the report's name; a target whose name ends in ``_fixed``
is drawn beside the target it fixes. Needs matplotlib (``pip install 'compilelint[plot]'``):
PNG is what an issue tracker takes, and drawing it ourselves would be worse than this
well-kept library. Usable without the CLI: ``python -m compilelint.verify.plot OUT.png A.json [B.json]``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


class PlotUnavailable(RuntimeError):
    """matplotlib is not installed."""


@dataclass(frozen=True)
class Bar:
    label: str  # target (and the report it comes from, when there are several)
    eager_ms: float
    compiled_ms: float | None  # None: no compiled time (backend failed)


def _group_key(name: str) -> str:
    return name.removeprefix("target_").removesuffix("_fixed")


def bars(reports: Sequence[tuple[str, dict[str, Any]]]) -> list[Bar]:
    """The targets with an eager time, a target's entries together, the ``_fixed`` one after."""
    found: list[tuple[str, int, Bar]] = []
    for order, (name, report) in enumerate(reports):
        for target in report.get("targets", []):
            timing = target.get("timing") or {}
            if not timing.get("eager_ms"):
                continue
            label = target["target"].removeprefix("target_")
            if len(reports) > 1:
                label = f"{label} ({name})"
            found.append((_group_key(target["target"]), order + 10 * target["target"].endswith("_fixed"),
                          Bar(label, float(timing["eager_ms"]), timing.get("compiled_ms"))))  # fmt: skip
    groups = list(dict.fromkeys(key for key, _, _ in found))
    found.sort(key=lambda item: (groups.index(item[0]), item[1]))
    return [bar for _, _, bar in found]


def write_plot(path: str, reports: Sequence[tuple[str, dict[str, Any]]], title: str = "") -> int:
    """Draw the chart to ``path`` (format from its suffix); returns the number of targets drawn."""
    try:
        import matplotlib

        matplotlib.use("Agg")  # no display: files only
        import matplotlib.pyplot as plt
    except ImportError as error:
        raise PlotUnavailable("--plot needs matplotlib: pip install 'compilelint[plot]'") from error
    drawn = bars(reports)
    figure, axes = plt.subplots(figsize=(9.0, max(2.5, 0.42 * len(drawn) + 1.4)))
    positions = list(range(len(drawn)))[::-1]  # the first target on top
    relative = [bar.compiled_ms / bar.eager_ms if bar.compiled_ms else 0.0 for bar in drawn]
    colours = ["#2ca02c" if value and value < 1 else "#d62728" for value in relative]
    axes.barh(positions, relative, color=colours, height=0.6)
    axes.axvline(1.0, color="#555555", linewidth=1, linestyle="--")
    limit = max([1.2, *relative]) * 1.55
    for position, bar, value in zip(positions, drawn, relative):
        if bar.compiled_ms:
            text = f"eager {bar.eager_ms:.2f} ms, compiled {bar.compiled_ms:.2f} ms: {bar.eager_ms / bar.compiled_ms:.2f}×"
        else:
            text = f"eager {bar.eager_ms:.2f} ms, no compiled time"
        axes.text(value + limit * 0.01, position, text, va="center", fontsize=7)
    axes.set_xlim(0, limit)
    axes.set_yticks(positions)
    axes.set_yticklabels([bar.label for bar in drawn], fontsize=8)
    axes.set_xlabel("compiled time / eager time (left of the dashed line: compiling pays off)", fontsize=8)
    axes.set_title(title or "eager vs compiled latency per target", fontsize=10)
    figure.tight_layout()
    figure.savefig(path, dpi=130)
    plt.close(figure)
    return len(drawn)


def main(argv: list[str]) -> None:
    if len(argv) < 3:
        raise SystemExit("usage: python -m compilelint.verify.plot OUT.png REPORT.json [REPORT.json ...]")
    reports = []
    for path in argv[2:]:
        name, _, file = path.rpartition("=") if "=" in path else ("", "", path)
        with open(file, encoding="utf-8") as handle:
            reports.append((name or file.rsplit("/", 1)[-1].removesuffix(".json"), json.load(handle)))
    count = write_plot(argv[1], reports)
    print(f"{argv[1]}: {count} targets")


if __name__ == "__main__":
    main(sys.argv)
