"""Import paths of linkaudit 0.1, kept for one release.

The package was rearranged into folders (README, "Layout").  A settings file
or a script that names an old path (``LINKAUDIT_STATE =
"linkaudit.sqlitestate.SQLiteState"``, ``"linkaudit.pipelines.ReportPipeline":
300``, ``python -m linkaudit.journal``) still works: the old module is a
stand-in that hands out the same objects, with a DeprecationWarning naming
the new path.  The stand-ins go in the next release.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import warnings
from types import CodeType, ModuleType
from typing import Any

# old module -> new module(s); a name not found in the first is looked up in
# the next (classify and extract were split)
MOVED: dict[str, tuple[str, ...]] = {
    "linkaudit.urls": ("linkaudit.rules.urls",),
    "linkaudit.extract": ("linkaudit.rules.html",),
    "linkaudit.classify": (
        "linkaudit.rules.statuses",
        "linkaudit.rules.guards",
        "linkaudit.network.failures",
    ),
    "linkaudit.sqlitestate": ("linkaudit.state.sqlite", "linkaudit.state.database"),
    "linkaudit.recheck": ("linkaudit.rules.recheck",),
    "linkaudit.baseline": ("linkaudit.state.baseline",),
    "linkaudit.pipelines": ("linkaudit.output.pipelines",),
    "linkaudit.report": ("linkaudit.output.report", "linkaudit.output.formats.text"),
    "linkaudit.formats": ("linkaudit.output.formats",),
    "linkaudit.journal": ("linkaudit.output.journal",),
    "linkaudit.archive": ("linkaudit.output.archive",),
    "linkaudit.exporters": ("linkaudit.output.exporters",),
    "linkaudit.logformatter": ("linkaudit.output.logformatter",),
    "linkaudit.exitstatus": ("linkaudit.output.exitstatus",),
    "linkaudit.progress": ("linkaudit.extensions.progress",),
    "linkaudit.download": ("linkaudit.network.handler",),
    "linkaudit.demosite": ("linkaudit.demo",),
}
# classes that lived in a module that is now a package of the same name
MOVED_NAMES: dict[str, str] = {
    "linkaudit.extensions.CrawlDelay": "linkaudit.extensions.crawldelay",
    "linkaudit.extensions.DrainOnClose": "linkaudit.extensions.drain",
    "linkaudit.extensions.Interrupted": "linkaudit.extensions.drain",
}


def _warn(old: str, new: str) -> None:
    warnings.warn(
        f"{old} moved to {new}; the old path goes in the next release",
        DeprecationWarning,
        stacklevel=3,
    )


class _StandIn(ModuleType):
    """An old module: every attribute comes from the new module(s)."""

    def __init__(self, name: str, targets: tuple[str, ...]):
        super().__init__(name, f"moved to {targets[0]}")
        self._targets = targets

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__"):
            raise AttributeError(attr)
        for target in self._targets:
            module = importlib.import_module(target)
            if hasattr(module, attr):
                _warn(f"{self.__name__}.{attr}", f"{target}.{attr}")
                return getattr(module, attr)
        raise AttributeError(f"module {self.__name__!r} has no attribute {attr!r}")


class _Loader(importlib.abc.Loader):
    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return _StandIn(spec.name, MOVED[spec.name])

    def exec_module(self, module: ModuleType) -> None:
        pass

    def get_code(self, fullname: str) -> CodeType | None:
        """``python -m linkaudit.journal`` runs the new module."""
        target = MOVED[fullname][0]
        _warn(fullname, target)
        spec = importlib.util.find_spec(target)
        assert spec is not None and spec.loader is not None
        return spec.loader.get_code(target)  # type: ignore[attr-defined]


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(
        self, fullname: str, path: object = None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in MOVED:
            return None
        # the new module's file as origin: "python -m" puts it in sys.argv[0]
        target = importlib.util.find_spec(MOVED[fullname][0])
        origin = target.origin if target is not None else None
        return importlib.machinery.ModuleSpec(fullname, _Loader(), origin=origin)


def install() -> None:
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.append(_Finder())


def moved_name(package: str, attr: str) -> Any:
    """For a package's ``__getattr__``: a class the old module held."""
    target = MOVED_NAMES.get(f"{package}.{attr}")
    if target is None:
        raise AttributeError(f"module {package!r} has no attribute {attr!r}")
    _warn(f"{package}.{attr}", f"{target}.{attr}")
    return getattr(importlib.import_module(target), attr)
