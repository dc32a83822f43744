"""The layout holds (docs/contributing/layout.md), read from the source with ``ast``:

- no import circle between linkaudit's modules, counting every import: at
  the top, under ``TYPE_CHECKING`` and inside functions (a circle hidden in
  a function or a type hint is still two modules that need each other);
- folders depend one way (:data:`MAY_IMPORT`): ``rules`` <- ``state`` <-
  ``output``, ``config`` beside (it imports neither);
- the rules import nothing of Scrapy or Twisted;
- exceptions that cross folders are in ``exceptions.py``: the components
  judge what middlewares and extensions raise without importing them;
- private names of Scrapy, Twisted and the standard library only in
  ``internals.py`` (:data:`HOOKS` aside): outside it, ``x._name`` names
  what linkaudit defines, and no class of ours touches a private name of
  its foreign base (imported: the base's names are read from the base);
- a state is used through its interface: no ``getattr(state, ...)`` or
  ``hasattr(state, ...)``;
- no module grows past 300 lines of code (docstrings, comments and blank
  lines not counted: no module is split only to fit, nor its why cut short);
- the spider is Scrapy glue: ``LinkAuditSpider``'s bases are Scrapy's
  only, and no module outside ``linkaudit/spiders/`` reads the spider's
  attributes (components hold their own state, built ``from_crawler``).
"""

from __future__ import annotations

import argparse
import ast
import importlib
import inspect
import io
import re
import textwrap
import tokenize
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "linkaudit"
LIMIT = 300

# folder (or top-level module) -> the folders and top-level modules of
# linkaudit it may import.  Not listed: imports nothing of linkaudit.
# Top-level modules every part of the crawl may use: the package itself
# (__version__), items (UrlResult), meta (request meta keys), signals,
# internals (Scrapy's private names, named once), exceptions (the crawl's
# exceptions that cross folders; Scrapy's kind, so not for the folders that
# import no Scrapy: rules, config, state, output raise their own).
_COMMON = {"linkaudit", "items", "meta", "signals", "internals", "exceptions"}
MAY_IMPORT: dict[str, set[str]] = {
    "rules": {"items"},  # pure: what a link, a page, an answer is
    # beside: reads and checks settings (sources: git asked about --changed-since)
    "config": {"linkaudit", "rules", "internals", "sources", "notify"},
    # --notify: what changed, read from the final report, and sent (targets.py: pure)
    "notify": {"linkaudit", "items", "rules", "output"},
    # a build's places of findings -> their source lines (pure of the crawl)
    "sources": {"items", "rules"},
    "state": {"items", "signals", "rules", "config"},  # the audit's memory
    # the crawl's audit: configuration, link rules, state, run (audit.py)
    "audit": {"items", "meta", "rules", "config", "state"},
    "output": {"items", "signals", "linkaudit", "rules", "config", "state", "audit"}  # reports
    | {"sources"},
    # the crawl's item pipelines: results recorded, the report written (output's)
    "pipelines": _COMMON | {"config", "state", "output", "audit", "rules"},
    # Scrapy's feed exporter and storage as ours (output/files.py opens the file)
    "exporters": {"linkaudit", "internals", "output"},
    "logformatter": set(),  # one INFO line a response (LOG_FORMATTER)
    # the command (demo: the site it serves, command/sites.py)
    "command": {"linkaudit", "internals", "rules", "config", "state", "output", "demo"}
    | {"localbuild"},
    # (rendering: the browser a page's render is handed to, made on demand; rules: the
    # names that never resolve, which the offline rule leaves out too)
    "network": _COMMON | {"config", "rendering", "rules"},
    # --render: the browser (scrapy-playwright) and what one page may do in it
    # (hosts: a held host's hold, which the browser's own requests wait for too)
    "rendering": _COMMON | {"config", "rules", "hosts"},
    # what happens to requests to one host: its pace and its health
    "hosts": _COMMON | {"config", "audit", "rules", "network"},
    "middlewares": _COMMON | {"rules", "config", "state", "network", "audit"},
    "extensions": _COMMON | {"config", "state", "output", "audit", "notify"},
    # the crawl's components: scheduler, discovery, readers, failure judge
    # (what middlewares and extensions raise: exceptions)
    "components": _COMMON | {"rules", "config", "state", "audit", "network", "hosts"},
    "spiders": _COMMON | {"config", "audit", "components"},
    # --archive: broken links' archived copies, looked up through the engine
    "memento": _COMMON | {"config", "audit", "rules", "network"},
    # everything about a local build: its walk, static-host rules, handler, server
    "localbuild": _COMMON
    | {"rules", "config", "state", "output", "audit", "components", "network"}
    | {"notify"},
    "demo": {"localbuild"},  # served as a build is (localbuild/serving.py)
    "linkaudit": set(),  # the package: its version
    "internals": set(),
    "exceptions": set(),
    "items": set(),
    "meta": {"rules"},  # the phases are the decision table's
    "signals": set(),
    "settings": {"linkaudit", "items", "config"},
    # (rules: the page scan's self-check, before anything else is done)
    "cli": {"linkaudit", "command", "config", "output", "demo", "spiders", "audit", "rules"}
    | {"localbuild"},
    "__main__": {"cli"},
}


@cache
def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


@cache
def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text())


def _imports(name: str, path: Path) -> set[str]:
    """The modules of linkaudit ``name`` imports, anywhere in it.  A package
    being imported before its modules is not counted: Python has it in
    sys.modules before any of them runs."""
    modules = _modules()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    names: set[str] = set()
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:  # relative: from its package up
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join([*base, module] if module else base)
            names.add(module)
            names |= {f"{module}.{alias.name}" for alias in node.names}
    return {m for m in names if m in modules and m != name}


def _graph() -> dict[str, set[str]]:
    return {name: _imports(name, path) for name, path in _modules().items()}


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected parts of more than one module (Tarjan's, by
    iteration: the stack is bounded by the number of modules)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                part = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    part.append(member)
                    if member == node:
                        break
                if len(part) > 1:
                    found.append(sorted(part))
    return found


def _folder(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "linkaudit"


def test_no_import_circles_counting_type_checking_and_function_imports():
    circles = _circles(_graph())
    assert not circles, "\n".join(" <-> ".join(c) for c in circles)


def test_the_layout_test_sees_imports_in_functions_and_type_checking():
    """The circle finder is fed every kind of import (a test that cannot
    fail is no test)."""
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _circles(graph) == [["a", "b", "c"]]
    hidden = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from linkaudit.state.base import AuditState\n"
        "def f():\n    from linkaudit.output import report\n"
    )
    seen = {n.module for n in ast.walk(hidden) if isinstance(n, ast.ImportFrom) and n.level == 0}
    assert {"linkaudit.state.base", "linkaudit.output"} <= seen


# Imports across the table, each for a reason, inside the function that
# needs it: the configuration checks what the user named by opening it (a
# state class must be one of the state interface; an audit database must
# open), so that a bad one is one error line before anything is requested.
CHECKED_BY_OPENING = {
    "linkaudit.config.checks -> linkaudit.state.base",
    "linkaudit.config.checks -> linkaudit.state.database",
}


def test_folders_depend_one_way():
    wrong = set()
    for module, imported in _graph().items():
        source = _folder(module)
        allowed = MAY_IMPORT.get(source)
        assert allowed is not None, f"{source}: a new folder: add it to MAY_IMPORT"
        for target in imported:
            folder = _folder(target)
            if folder != source and folder not in allowed:
                wrong.add(f"{module} -> {target}")
    assert wrong == CHECKED_BY_OPENING, sorted(wrong ^ CHECKED_BY_OPENING)


def test_the_table_is_one_way():
    """rules <- state <- output, config beside: no folder of the table may
    import one that may import it back."""
    both = {
        frozenset({folder, target})
        for folder, targets in MAY_IMPORT.items()
        for target in targets
        if folder in MAY_IMPORT.get(target, set())
    }
    assert not both, both
    assert not {"state", "output"} & MAY_IMPORT["config"]
    assert not {"output", "spiders"} & MAY_IMPORT["state"]
    assert MAY_IMPORT["rules"] <= {"items"}
    # what a middleware or an extension raises is judged through exceptions
    assert not {"middlewares", "extensions"} & MAY_IMPORT["components"]
    # exceptions imports Scrapy: not for the folders that import none
    assert not any("exceptions" in MAY_IMPORT[f] for f in ("rules", "config", "state", "output"))


def test_the_rules_are_pure():
    for path in (PACKAGE / "rules").rglob("*.py"):
        name = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        outside = set()
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.Import):
                outside |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                outside.add(node.module)
        outside = {m for m in outside if m.split(".")[0] in ("scrapy", "twisted")}
        assert not outside, (name, outside)


# Private names of Scrapy, Twisted and the standard library are named in
# internals.py only, each in a function that says what it reads and from
# which version.  Outside it:
# - no import from a private module of theirs, nor of a private name;
# - ``x._name`` and ``getattr(x, "_name")`` name only what linkaudit's own
#   code defines outside internals.py (a function, a class, an assignment);
# - a class of ours defines, assigns or reads on ``self`` no private name
#   of a base from outside linkaudit (read from the base's class and code),
#   but the private hooks overridden where they are (HOOKS: documented in
#   internals.py).
# None today: internals.py subclasses each component whose private hook
# linkaudit overrides and opens it as a public one (its module docstring).
HOOKS: dict[str, set[str]] = {}
# Public though underscored (the standard library documents them): a named
# tuple's methods (underscored so that no field can clash), os._exit.
PUBLIC = {"_replace", "_asdict", "_fields", "_make", "_field_defaults"}
PUBLIC_FUNCTIONS = {"os._exit"}
INTERNALS = PACKAGE / "internals.py"


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _private_imports(tree: ast.AST) -> Iterator[str]:
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.split(".")[0] in ("scrapy", "twisted", "argparse"):
                private = [a.name for a in node.names if a.name.startswith("_")]
                if any(part.startswith("_") for part in node.module.split(".")) or private:
                    yield f"from {node.module} import ... line {node.lineno}"


def _defined(tree: ast.AST) -> set[str]:
    """The private names a module defines: functions, classes, methods, and
    what it assigns (``_X = ...``, ``self._x = ...``)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store | ast.Del):
            names.add(node.attr)
    return {name for name in names if _is_private(name)}


@cache
def _ours() -> frozenset[str]:
    """The private names linkaudit defines, internals.py aside (what it
    assigns there is someone else's: ``_delay``, ``_ScrapyAgent``...)."""
    paths = [p for p in PACKAGE.rglob("*.py") if p != INTERNALS]
    return frozenset().union(*(_defined(_tree(p)) for p in paths))


def _private_uses(tree: ast.AST) -> Iterator[tuple[str, str]]:
    """(name, where) of each ``x._name`` and ``getattr(x, "_name")`` (or
    ``hasattr``, ``setattr``, ``delattr``)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _is_private(node.attr):
            shown = ast.unparse(node)
            if node.attr not in PUBLIC and shown not in PUBLIC_FUNCTIONS:
                yield node.attr, f"{shown} line {node.lineno}"
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "hasattr", "setattr", "delattr")
            and len(node.args) > 1
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
            and _is_private(node.args[1].value)
        ):
            yield node.args[1].value, f"{ast.unparse(node)} line {node.lineno}"


# One check path: a local build's walk answers a check's requests from the
# files; what an answer means (its status judged, the decision table read)
# and what a page, a redirect or a far page's anchors say are the crawl's
# components' (components/path.py, pages.py, probes.py), fed the same value
# (components/answers.py).  The walk imports no judge or reader of its own.
_READERS = ("linkaudit.rules.html", "linkaudit.rules.css", "linkaudit.rules.pagelinks")
_JUDGES = {"judge_status", "decide", "unchecked_reason", "says_not_found", "parse_sitemap"}


def _judges_and_readers(tree: ast.Module) -> set[str]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.startswith(_READERS):
                found.add(node.module)
            found |= {a.name for a in node.names if a.name in _JUDGES}
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith(_READERS)}
    return found


# localbuild/places.py reads the built pages that hold findings again, at
# report time, for the links as they were written: no check, and the scan's
# own reader, so that it finds the links the scan found; localbuild/sitemap.py
# reads the build's own sitemap.xml at report time, to tell a page only it
# lists from an orphan (never a check: its URLs are not audited for it)
_REPORT_TIME = {"places.py", "sitemap.py"}


def test_the_walk_has_one_check_path():
    own = {
        str(path.relative_to(PACKAGE)): found
        for path in sorted((PACKAGE / "localbuild").glob("*.py"))
        if path.name not in _REPORT_TIME and (found := _judges_and_readers(_tree(path)))
    }
    assert own == {}


@pytest.mark.parametrize(
    "source",
    [
        "from linkaudit.rules.html import extract_links\n",
        "import linkaudit.rules.pagelinks\n",
        "def f():\n    from linkaudit.rules.statuses import judge_status\n",
        "from linkaudit.rules.decisions import decide\n",
    ],
)
def test_a_reader_of_its_own_is_seen(source):
    assert _judges_and_readers(ast.parse(source))


# A page's render is a phase of the check path: its request carries the
# page's answer as plain data, its answer is a Reply like any other.  Only
# the crawl's glue (components/checks.py: the spider's response made a Reply)
# reads Scrapy's Response; no component branches on the render's meta key.
_RESPONSE_GLUE = {"checks.py"}


def _scrapy_responses_and_render_keys(tree: ast.Module, glue: bool = False) -> set[str]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("scrapy"):
            if not glue:
                found |= {a.name for a in node.names if a.name.endswith("Response")}
        elif isinstance(node, ast.Compare) and ast.unparse(node.left) == "RENDER":
            found.add(ast.unparse(node))
    return found


def test_no_component_takes_a_scrapy_response_or_reads_a_render_flag():
    own = {
        path.name: found
        for path in sorted((PACKAGE / "components").glob("*.py"))
        if (found := _scrapy_responses_and_render_keys(_tree(path), path.name in _RESPONSE_GLUE))
    }
    assert own == {}


@pytest.mark.parametrize(
    "source",
    [
        "from scrapy.http import Response\n",
        "from scrapy.http import HtmlResponse, Request\n",
        "if RENDER in response.meta:\n    pass\n",
    ],
)
def test_a_response_or_a_render_flag_in_a_component_is_seen(source):
    assert _scrapy_responses_and_render_keys(ast.parse(source))


def test_private_names_of_others_only_in_internals():
    ours = _ours()
    found = {}
    for path in PACKAGE.rglob("*.py"):
        if path == INTERNALS:
            continue
        tree = _tree(path)
        names = list(_private_imports(tree))
        names += [shown for name, shown in _private_uses(tree) if name not in ours]
        if names:
            found[str(path.relative_to(PACKAGE))] = names
    assert not found, found


def _base_privates(cls: type) -> set[str]:
    """The private names of ``cls``'s bases from outside linkaudit: their
    methods and class attributes, and the attributes their code sets on
    ``self``."""
    names: set[str] = set()
    for base in cls.__mro__[1:]:
        if base is object or base.__module__.split(".")[0] == "linkaudit":
            continue
        names |= set(vars(base))
        try:
            source = inspect.getsource(base)
        except (OSError, TypeError):  # built in C: its attributes are its own
            continue
        names |= set(re.findall(r"self\.(\w+)\s*(?::[^=\n]*)?=(?!=)", source))
    return {name for name in names if _is_private(name)}


def _own_privates(node: ast.ClassDef) -> dict[str, int]:
    """The private names a class defines, assigns or reads on ``self``
    (or ``super()``), with a line of each."""
    names: dict[str, int] = {}
    for sub in ast.walk(node):
        if isinstance(sub, ast.FunctionDef | ast.AsyncFunctionDef):
            names.setdefault(sub.name, sub.lineno)
        elif isinstance(sub, ast.Attribute) and (
            (isinstance(sub.value, ast.Name) and sub.value.id == "self")
            or (isinstance(sub.value, ast.Call) and ast.unparse(sub.value.func) == "super")
        ):
            names.setdefault(sub.attr, sub.lineno)
    names.update(
        (target.id, sub.lineno)
        for sub in node.body
        if isinstance(sub, ast.Assign | ast.AnnAssign)
        for target in (sub.targets if isinstance(sub, ast.Assign) else [sub.target])
        if isinstance(target, ast.Name)
    )
    return {name: line for name, line in names.items() if _is_private(name)}


def test_no_class_of_ours_touches_a_private_name_of_a_foreign_base():
    found: dict[str, list[str]] = {}
    hooks: dict[str, set[str]] = {}
    for name, path in _modules().items():
        where = str(path.relative_to(PACKAGE))
        classes = [n for n in _tree(path).body if isinstance(n, ast.ClassDef) and n.bases]
        if path == INTERNALS or name == "linkaudit.__main__" or not classes:
            continue
        module = importlib.import_module(name)
        for node in classes:
            privates = _base_privates(getattr(module, node.name))
            for attr, line in _own_privates(node).items():
                if attr in privates and attr in HOOKS.get(where, ()):
                    hooks.setdefault(where, set()).add(attr)
                elif attr in privates:
                    found.setdefault(where, []).append(f"{node.name}: {attr} line {line}")
    assert not found, found
    assert hooks == HOOKS  # each hook allowed is one overridden there


@pytest.mark.parametrize(
    "source, expected",
    [
        ("self._seen = set()\nself._seen.add(1)", []),  # ours: assigned here
        ("self._parsers[k] = v", ["self._parsers line 1"]),  # changed, not assigned
        ("x = self._stats", ["self._stats line 1"]),
        ("getattr(engine, '_slot', None)", ["getattr(engine, '_slot', None) line 1"]),
        ("p = p._replace(a=1); os._exit(1)", []),
        ("from twisted.web import _newclient", ["from twisted.web import ... line 1"]),
    ],
)
def test_private_names_of_others_are_seen(source, expected):
    tree = ast.parse(source)
    ours = _defined(tree)
    found = list(_private_imports(tree))
    found += [shown for name, shown in _private_uses(tree) if name not in ours]
    assert found == expected


def test_a_class_touching_its_foreign_base_privates_is_seen():
    class Parsers(argparse.ArgumentParser):
        def _get_values(self, action, strings):  # an override of a private hook
            return self._defaults  # a read of a private attribute

    tree = ast.parse(textwrap.dedent(inspect.getsource(Parsers)))
    own = _own_privates(tree.body[0])
    assert set(own) & _base_privates(Parsers) == {"_get_values", "_defaults"}


def _calls_on_state(tree: ast.AST) -> Iterator[str]:
    """``getattr(state, ...)``, ``hasattr(x.state, ...)``: a state asked
    what it has instead of told by its interface."""
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "hasattr")
            and node.args
        ):
            target = node.args[0]
            name = (
                target.id
                if isinstance(target, ast.Name)
                else target.attr
                if isinstance(target, ast.Attribute)
                else None
            )
            if name == "state":
                yield f"{node.func.id}({ast.unparse(target)}, ...) line {node.lineno}"


def test_a_state_is_used_through_its_interface():
    found = {
        str(path.relative_to(PACKAGE)): calls
        for path in PACKAGE.rglob("*.py")
        if (calls := list(_calls_on_state(_tree(path))))
    }
    assert not found, found


def _docstring_lines(tree: ast.Module) -> set[int]:
    """The lines of the module's, its classes' and its functions' docstrings."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                lines.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    return lines


def code_lines(source: str) -> int:
    """Lines holding code: not blank, not only a comment, not in a docstring
    (a string that is code, such as a Lua script, counts)."""
    layout = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT}
    layout |= {tokenize.DEDENT, tokenize.ENDMARKER}
    lines: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in layout:
            lines.update(range(token.start[0], token.end[0] + 1))
    return len(lines - _docstring_lines(ast.parse(source)))


def test_no_module_over_300_lines_of_code():
    long = {
        str(p.relative_to(PACKAGE)): n
        for p in PACKAGE.rglob("*.py")
        if (n := code_lines(p.read_text())) > LIMIT
    }
    assert not long, long


@pytest.mark.parametrize(
    "source, expected",
    [
        ('"""A module.\n\nIts why."""\n\n# a comment\nx = 1  # counted\n', 1),
        ('def f():\n    """Says why."""\n\n    return """a\nstring"""\n', 3),
        ("class A:\n    '''doc'''\n    y = (\n        2\n    )\n", 4),
    ],
)
def test_the_cap_counts_code_only(source, expected):
    assert code_lines(source) == expected


def test_the_spider_has_scrapy_bases_only():
    tree = _tree(PACKAGE / "spiders" / "linkaudit.py")
    (spider,) = [
        n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "LinkAuditSpider"
    ]
    bases = [ast.unparse(b) for b in spider.bases]
    assert bases in (["scrapy.Spider"], ["Spider"]), bases


def _spider_reads(tree: ast.AST) -> Iterator[str]:
    """Attributes read off the spider: ``spider.x``, ``crawler.spider.x``,
    ``self.crawler.spider.x`` (handing ``spider`` on is not reading it).
    Scrapy's own names a component may ask any spider for are allowed."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or node.attr in SPIDER_API:
            continue
        value = node.value
        if (isinstance(value, ast.Name) and value.id == "spider") or (
            isinstance(value, ast.Attribute) and value.attr == "spider"
        ):
            yield f"{ast.unparse(node)} line {node.lineno}"


# what Scrapy itself asks of any spider (scrapy.Spider's interface)
SPIDER_API = {"name", "crawler", "settings", "logger", "custom_settings"}


def test_no_module_outside_the_spiders_reads_the_spider():
    found = {}
    for path in PACKAGE.rglob("*.py"):
        if path.is_relative_to(PACKAGE / "spiders"):
            continue
        reads = list(_spider_reads(_tree(path)))
        if reads:
            found[str(path.relative_to(PACKAGE))] = reads
    assert not found, found


@pytest.mark.parametrize(
    "source, expected",
    [
        ("spider.state.close()", ["spider.state line 1"]),
        ("x = self.crawler.spider.baseline", ["self.crawler.spider.baseline line 1"]),
        ("signals.send(spider=spider)", []),
        ("spider.name", []),
    ],
)
def test_the_spider_reads_are_seen(source, expected):
    assert list(_spider_reads(ast.parse(source))) == expected


# -- the test suite: no test module imports another ----------------------------------
# What tests share is in tests/helpers/ (and conftest.py, the servers, the
# generated sites): a test module imported by another runs its module-level
# code and registers its fixtures twice, and is changed by its owner for its
# own tests only.
TESTS = Path(__file__).resolve().parent


def _test_modules_imported(tree: ast.AST, package: tuple[str, ...]) -> Iterator[str]:
    """The test modules (``tests/test_*.py``) a module of the suite imports,
    by any spelling: ``import tests.test_x``, ``from tests import test_x``,
    ``from tests.test_x import y``, ``from . import test_x``, ``package``
    being the module's own (relative imports are read from it)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else ()
            module = ".".join([*base, *(node.module.split(".") if node.module else ())])
            names = [module, *(f"{module}.{alias.name}" for alias in node.names)]
        else:
            continue
        for name in names:
            parts = name.split(".")
            at = 2 if parts[:2] == ["tests", "unit"] else 1  # the fast tier's modules too
            if parts[0] == "tests" and len(parts) > at and parts[at].startswith("test_"):
                yield f"{'.'.join(parts[: at + 1])} line {node.lineno}"
                break


@pytest.mark.parametrize(
    "source, package",
    [
        ("import tests.test_x", ("tests",)),
        ("from tests import test_x", ("tests",)),
        ("from tests.test_x import y", ("tests", "helpers")),
        ("from . import test_x", ("tests",)),
        ("from .test_x import y", ("tests",)),
        ("from .. import test_x", ("tests", "helpers")),
    ],
)
def test_an_import_of_a_test_module_is_seen(source, package):
    assert list(_test_modules_imported(ast.parse(source), package)) == ["tests.test_x line 1"]
    if "tests" in source:  # a module of the fast tier (tests/unit/)
        unit = source.replace("tests.test_x", "tests.unit.test_x")
        unit = unit.replace("tests import", "tests.unit import")
        found = list(_test_modules_imported(ast.parse(unit), package))
        assert found == ["tests.unit.test_x line 1"], unit
    assert list(_test_modules_imported(ast.parse("from tests.helpers import test"), package)) == []


def test_no_test_module_imports_another():
    found = {}
    for path in sorted(TESTS.rglob("*.py")):
        where = path.relative_to(TESTS.parent)
        if "data" in where.parts:  # test data, not the suite
            continue
        imported = list(_test_modules_imported(_tree(path), where.parent.parts))
        if imported:
            found[str(where)] = imported
    assert not found, found


# Where a result is made: the check path (the audit's ``result`` and
# ``unchecked``, the crawl's components), and where a stored one is read
# back (the states, the journal).  A local build's walk, the outputs and the
# report make none of their own.
MAKES_RESULTS = {"audit.py", "components", "state", "output/journal.py"}


def test_a_result_is_made_only_by_the_check_path():
    found = []
    for path in PACKAGE.rglob("*.py"):
        where = path.relative_to(PACKAGE)
        if (
            str(where) in MAKES_RESULTS
            or where.parts[0] in MAKES_RESULTS
            or where.name == "items.py"
        ):
            continue
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.Call) and ast.unparse(node.func).endswith("UrlResult"):
                found.append(f"{where}:{node.lineno}")
    assert not found, found


def test_a_format_takes_its_words_from_one_place():
    """The formats read the report they are given and take their words from
    ``output/words.py``: none reaches back into a section builder of
    ``output/report/`` (only its JSON writer, ``atomic.py``, for the JSON
    format itself, and its records, ``records.py``: the report's shapes as
    types, no words)."""
    reaching = []
    for path in (PACKAGE / "output" / "formats").rglob("*.py"):
        for node in ast.walk(_tree(path)):
            if (
                isinstance(node, ast.ImportFrom)
                and (node.module or "").startswith("linkaudit.output.report")
                and node.module
                not in ("linkaudit.output.report.atomic", "linkaudit.output.report.records")
            ):
                reaching.append(f"{path.relative_to(PACKAGE)}: {node.module}")
    assert not reaching, reaching
