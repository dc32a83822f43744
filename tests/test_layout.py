"""The layout holds (docs/contributing/layout.md), read from the source with ``ast``:

- no import circle between linkaudit's modules, counting every import: at
  the top, under ``TYPE_CHECKING`` and inside functions (a circle hidden in
  a function or a type hint is still two modules that need each other);
- folders depend one way (:data:`MAY_IMPORT`): ``rules`` <- ``state`` <-
  ``output``, ``config`` beside (it imports neither);
- the rules import nothing of Scrapy or Twisted;
- a state is used through its interface: no ``getattr(state, ...)`` or
  ``hasattr(state, ...)``;
- no module grows past 300 lines;
- the spider is Scrapy glue: ``LinkAuditSpider``'s bases are Scrapy's
  only, and no module outside ``linkaudit/spiders/`` reads the spider's
  attributes (components hold their own state, built ``from_crawler``).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "linkaudit"
LIMIT = 300

# folder (or top-level module) -> the folders and top-level modules of
# linkaudit it may import.  Not listed: imports nothing of linkaudit.
# Top-level modules every part may use: the package itself (__version__),
# items (UrlResult), meta (request meta keys), signals, internals (Scrapy's
# private names, named once).
_COMMON = {"linkaudit", "items", "meta", "signals", "internals"}
MAY_IMPORT: dict[str, set[str]] = {
    "rules": {"items"},  # pure: what a link, a page, an answer is
    "config": {"linkaudit", "rules", "demo", "internals"},  # beside: reads and checks settings
    "state": {"items", "signals", "rules", "config"},  # the audit's memory
    # the crawl's audit: configuration, link rules, state, run (audit.py)
    "audit": {"items", "meta", "rules", "config", "state"},
    "output": {"items", "signals", "linkaudit", "rules", "config", "state", "audit"},  # reports
    # the command (demo: the site it serves, command/sites.py)
    "command": {"linkaudit", "internals", "rules", "config", "state", "output", "demo"},
    "network": _COMMON | {"config", "demo"},
    "middlewares": _COMMON | {"rules", "config", "state", "network", "demo", "audit"},
    "extensions": _COMMON | {"config", "state", "output", "audit"},
    # the crawl's components: scheduler, discovery, readers, failure judge
    "components": _COMMON
    | {"rules", "config", "state", "audit", "network", "middlewares", "extensions"},
    "spiders": _COMMON | {"config", "audit", "components"},
    "walk": _COMMON | {"rules", "config", "state", "output", "demo", "audit", "components"},
    "demo": set(),
    "linkaudit": set(),  # the package: its version
    "internals": set(),
    "items": set(),
    "meta": {"rules"},  # the phases are the decision table's
    "signals": set(),
    "settings": {"linkaudit", "items", "config"},
    # (rules: the page scan's self-check, before anything else is done)
    "cli": {"linkaudit", "command", "config", "output", "demo", "spiders", "walk", "audit", "rules"},
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
    seen = {
        n.module for n in ast.walk(hidden) if isinstance(n, ast.ImportFrom) and n.level == 0
    }
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


# Private names of Scrapy, Twisted and argparse that linkaudit uses: named in
# internals.py only.  Overriding a private hook of a Scrapy class is the one
# use left where it is (internals.py documents it).
PRIVATE = {"_slot", "_actions", "_mutually_exclusive_groups", "_group_actions", "_get_value"}
PRIVATE |= {"_timeout_cl", "_connectTimeout", "_crawler", "_split_domain", "_delay"}
PRIVATE |= {"_ScrapyAgent", "_idnaBytes", "_start_itemproc_nowait", "_get_help_string"}
PRIVATE |= {"_split_lines", "_parse_robots", "_join_if_needed"}
HOOKS = {"middlewares/robots.py": {"_parse_robots"}, "output/exporters.py": {"_join_if_needed"}}


def _private_names(tree: ast.AST) -> Iterator[str]:
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.split(".")[0] in ("scrapy", "twisted", "argparse"):
                private = [a.name for a in node.names if a.name.startswith("_")]
                if any(part.startswith("_") for part in node.module.split(".")) or private:
                    yield f"from {node.module} import ... line {node.lineno}"
        elif isinstance(node, ast.Attribute) and node.attr.startswith("_"):
            if node.attr in PRIVATE or (
                isinstance(node.value, ast.Name) and node.value.id in ("argparse", "scrapy")
            ):
                yield f"{ast.unparse(node)} line {node.lineno}"
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name in PRIVATE:
            yield f"def {node.name} line {node.lineno}"


def test_private_names_of_scrapy_and_argparse_only_in_internals():
    found = {}
    for path in PACKAGE.rglob("*.py"):
        where = str(path.relative_to(PACKAGE))
        if where == "internals.py":
            continue
        names = [n for n in _private_names(_tree(path)) if not _hook(where, n)]
        if names:
            found[where] = names
    assert not found, found


def _hook(where: str, name: str) -> bool:
    return any(hook in name for hook in HOOKS.get(where, ()))


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


def test_no_module_over_300_lines():
    long = {
        str(p.relative_to(PACKAGE)): n
        for p in PACKAGE.rglob("*.py")
        if (n := len(p.read_text().splitlines())) > LIMIT
    }
    assert not long, long


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
