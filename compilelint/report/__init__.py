"""Reports: turn findings into text, JSON or statistics. They format; they never lint.

Every function here takes findings (and, for snippets, the lines of the files they point
into) that the CLI gathered, and returns text or rich renderables for it to print.
"""

from __future__ import annotations

from compilelint.report.json import findings_to_json
from compilelint.report.statistics import RuleCount, count_by_rule, render_statistics, statistics_to_json
from compilelint.report.summary import Summary, summarise
from compilelint.report.text import render_concise, render_full

__all__ = [
    "RuleCount",
    "Summary",
    "count_by_rule",
    "findings_to_json",
    "render_concise",
    "render_full",
    "render_statistics",
    "statistics_to_json",
    "summarise",
]
