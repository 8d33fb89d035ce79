"""Following compiled code into installed packages (``follow-imports = "installed"``).

``PackageCalls`` is what a rule asks, per file: "does this call, with these argument
kinds, break the graph inside an installed package?" The answer comes from a
``PackageFollower`` shared by every file of the process (one per configuration), whose
summaries live in memory and on disk.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from compilelint.analysis import duck_calls
from compilelint.analysis.kinds import Kind
from compilelint.installed.cache import SummaryStore, default_cache_dir
from compilelint.cache import DEPENDENCY_KINDS
from compilelint.installed.extensions import extension_module
from compilelint.installed.locate import Locator, distribution_of, site_dirs
from compilelint.project import absolute_target, module_name
from compilelint.installed.package_facts import method_owners
from compilelint.installed.summaries import MAX_FILES, InnerSite, PackageFollower, Summary, with_follow

if TYPE_CHECKING:
    from compilelint.config import Settings

FOLLOW_CHOICES = ("installed", "project", "none")
PACKAGE_CODES = frozenset({"CL150", "CL151"})  # call-site findings: a nested package's count whatever is selected


@functools.lru_cache(maxsize=8)
def _follower(settings: Settings) -> PackageFollower:
    cache_dir = settings.package_cache_dir
    folder = (cache_dir or default_cache_dir()) if cache_dir != "" else None
    extra = tuple(os.path.realpath(p) for p in settings.package_paths if os.path.isdir(p))
    dirs = extra + site_dirs(settings.python_executable, folder)
    return PackageFollower(Locator(dirs), SummaryStore(folder), settings)


def follower_for(settings: Settings) -> PackageFollower | None:
    """The follower for these settings; None unless installed packages are followed."""
    if settings.follow_imports != "installed":
        return None
    return _follower(with_follow(settings))


@dataclass(frozen=True)
class ReachedBreaks:
    """The hazards a call reaches inside a package, those the selection keeps."""

    summary: Summary
    sites: tuple[InnerSite, ...]


def merge_reached(answers: Sequence[ReachedBreaks | None]) -> ReachedBreaks | None:
    """One answer for a call that may run any of several package functions (a local name
    bound to ``odeint_adjoint if adjoint else odeint``): every site any of them reaches."""
    found = [answer for answer in answers if answer is not None]
    if len(found) <= 1:
        return found[0] if found else None
    first = found[0]
    sites = {(s.path, s.line, s.code): s for answer in found for s in answer.sites}
    files = sorted({f for answer in found for f in answer.summary.files})
    depends = sorted({d for answer in found for d in answer.summary.depends_on})
    truncated = any(answer.summary.truncated for answer in found)
    summary = replace(first.summary, files=tuple(files), depends_on=tuple(depends), truncated=truncated)
    return ReachedBreaks(summary, tuple(sites[key] for key in sorted(sites)))


class PackageCalls:
    """Package summaries asked from one file; remembers which packages the answers used."""

    def __init__(self, follower: PackageFollower, path: str, enabled: frozenset[str]) -> None:
        self.follower = follower
        self.path = os.path.realpath(path) if path != "<stdin>" else path
        self.enabled = enabled
        self.depends_on: set[str] = set()

    def reached(
        self, target: str, positional: Sequence[Kind], keywords: Sequence[tuple[str, Kind]], root: bool = False
    ) -> ReachedBreaks | None:
        package = self.follower.locator.package(target.split(".", 1)[0])
        if package is None or self._inside(package.root):
            return None  # the linted file's own package is project code, not a dependency
        summary = self.follower.summary(target, positional, keywords, root)
        if summary is None:
            return None
        self.depends_on.update(summary.depends_on)
        sites = tuple(site for site in summary.sites if site.code in self.enabled or site.code in PACKAGE_CODES)
        return ReachedBreaks(summary, sites) if sites else None

    def duck_targets(self, method: str, packages: Sequence[str]) -> tuple[str, ...]:
        """``obj.method(...)`` on an object of no known class (analysis.duck_calls): the
        methods ``method`` of the classes that define it in the installed ``packages``
        (none when more than ``MAX_OWNERS`` do, across them)."""
        owners: list[str] = []
        for name in packages:
            package = self.follower.locator.package(name)
            if package is None or self._inside(package.root):
                continue
            owners.extend(method_owners(package.root, method, MAX_FILES))
        return tuple(f"{owner}.{method}" for owner in duck_calls.capped(tuple(owners)))

    def returns_stop_value(self, target: str, positional: Sequence[Kind], keywords: Sequence[tuple[str, Kind]]) -> bool:
        """Whether the package function may return a ``StopIteration.value`` (Summary.stop_value)."""
        package = self.follower.locator.package(target.split(".", 1)[0])
        if package is None or self._inside(package.root):
            return False
        summary = self.follower.summary(target, positional, keywords)
        if summary is None:
            return False
        self.depends_on.update(summary.depends_on)
        return summary.stop_value

    def property_kind(self, target: str) -> Kind | None:
        """What reading ``target`` (``torchcde.CubicSpline.interval``) gives, when the package
        defines it as a property; None when it is not one, or nothing is known."""
        package = self.follower.locator.package(target.split(".", 1)[0])
        if package is None or self._inside(package.root):
            return None
        summary = self.follower.summary(target, (), ())
        if summary is None or not summary.is_property or summary.returns == Kind.NONE:
            return None
        self.depends_on.update(summary.depends_on)
        return summary.returns

    def compiled_extension(self, target: str) -> str | None:
        """The compiled extension module (a ``.so``/``.pyd``) that defines ``target``, when
        it is one: in the linted file's own package too, since Dynamo traces none of them."""
        if target.startswith("."):  # ``from ._extensions._pywt import Modes`` in a package file
            absolute = absolute_target(target, module_name(self.path), os.path.basename(self.path) == "__init__.py")
            if absolute is None:
                return None
            target = absolute
        found = extension_module(self.follower.locator, target)
        package = self.follower.locator.package(target.split(".", 1)[0]) if found else None
        if package is not None:
            self.depends_on.add(f"package:{package.root}")
        return found

    def _inside(self, root: str) -> bool:
        return self.path == root or self.path.startswith(root.rstrip(os.sep) + os.sep)


def dependencies(result: object) -> tuple[str, ...]:
    """``package:<root folder>`` of every installed package whose summary a file's findings
    used: a results cache must key a file's findings on these as well as on its text."""
    return tuple(getattr(result, "depends_on", ()))


def package_fingerprint(root: str) -> str | None:
    """What a ``package:<root>`` dependency is checked by: the distribution and version
    installed there now, and the folder's mtime (files added or removed)."""
    name = os.path.basename(root)
    top = name[:-3] if name.endswith(".py") else name
    if not os.path.exists(root):
        return None
    distribution, version = distribution_of(os.path.dirname(root), top)
    return f"{distribution}=={version}@{os.stat(root).st_mtime_ns}"


DEPENDENCY_KINDS["package"] = package_fingerprint
