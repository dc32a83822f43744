"""Where a build's sources are: the usual layouts found by the marks their
tool leaves (``mkdocs.yml``, Sphinx's ``conf.py`` and ``searchindex.js``,
Hugo's and Jekyll's configuration), searched upward from the build
directory and from the current directory, within the git repository; or
the directories ``--sources`` names.  Configuration files are read as text
(a few top-level keys), never run: ``conf.py`` is read with
``ast.literal_eval``."""

from __future__ import annotations

import ast
import os
import re
from dataclasses import dataclass, field

MARKDOWN = (".md", ".markdown", ".mdown", ".mkdn", ".mkd", ".mdx")
REST = (".rst", ".rest", ".txt")
SPHINX_DIRS = ("", "docs", "doc", "docs/source", "doc/source", "source")
HUGO_CONFIGS = ("hugo.toml", "hugo.yaml", "hugo.yml", "hugo.json", "config.toml", "config.yaml")
UPWARD_WITHOUT_GIT = 3  # levels searched above the build without a git repository


@dataclass
class Layout:
    """A build's sources: the tool (None: files named as the pages are),
    its configuration file, the directories of the pages' sources, the
    theme's templates in the repository, and the Markdown flavour."""

    tool: str | None
    directories: list[str]
    config: str | None = None
    detected: bool = False
    templates: list[str] = field(default_factory=list)
    flavor: str = "commonmark"
    linkify: bool = False
    directory_urls: bool = True  # MkDocs' use_directory_urls
    extlinks: dict[str, str] = field(default_factory=dict)  # Sphinx's extlinks: role -> URL
    prefixes: dict[str, str] = field(default_factory=dict)  # Hugo: content dir -> "/nl"


def _text(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read(1 << 20)
    except OSError:
        return ""


def _key(text: str, name: str) -> str | None:
    """A top-level ``name: value`` (YAML) or ``name = value`` (TOML)."""
    found = re.search(rf"^{name}\s*[:=]\s*['\"]?([^'\"#\n]*?)['\"]?\s*(?:#.*)?$", text, re.M)
    return found.group(1).strip() if found else None


def _generator(build: str) -> str:
    head = _text(os.path.join(build, "index.html"))[:20000]
    found = re.search(r"<meta[^>]+name=.generator.[^>]+content=.([^\"']+)", head, re.I)
    return found.group(1).lower() if found else ""


def git_root(start: str) -> str | None:
    here = os.path.abspath(start)
    while True:
        if os.path.exists(os.path.join(here, ".git")):
            return here
        up = os.path.dirname(here)
        if up == here:
            return None
        here = up


def _upward(start: str) -> list[str]:
    """``start`` and the directories above it, to the git repository's root
    (or a few levels without one)."""
    here, root = os.path.abspath(start), git_root(start)
    out = []
    while True:
        out.append(here)
        up = os.path.dirname(here)
        if here == root or up == here or (root is None and len(out) > UPWARD_WITHOUT_GIT):
            return out
        here = up


def detect(build: str, cwd: str) -> Layout | None:
    """The layout whose tool made ``build``, the nearest first."""
    build = os.path.abspath(build)
    generator = _generator(build)
    seen: set[str] = set()
    for place in [*_upward(os.path.dirname(build)), *_upward(cwd)]:
        if place in seen:
            continue
        seen.add(place)
        for find in (_mkdocs, _sphinx, _hugo, _jekyll):
            layout = find(place, build, generator)
            if layout is not None:
                layout.detected = True
                return layout
    return None


def _inside(path: str, folder: str) -> bool:
    return os.path.commonpath([path, folder]) == folder


def _mkdocs(place: str, build: str, generator: str) -> Layout | None:
    for name in ("mkdocs.yml", "mkdocs.yaml"):
        config = os.path.join(place, name)
        if not os.path.isfile(config):
            continue
        text = _text(config)
        site = os.path.normpath(os.path.join(place, _key(text, "site_dir") or "site"))
        marks = os.path.isfile(os.path.join(build, "search", "search_index.json"))
        if build != site and not generator.startswith(("mkdocs", "zensical")) and not marks:
            continue
        docs = os.path.normpath(os.path.join(place, _key(text, "docs_dir") or "docs"))
        custom = re.search(r"^\s+custom_dir:\s*['\"]?([^'\"\n#]+)", text, re.M)
        urls = (_key(text, "use_directory_urls") or "true").lower() not in ("false", "no", "off")
        return Layout(
            "mkdocs", [docs], config,
            templates=[os.path.join(place, custom.group(1).strip())] if custom else [],
            flavor="mkdocs", linkify="magiclink" in text, directory_urls=urls,
        )  # fmt: skip
    return None


def _sphinx(place: str, build: str, generator: str) -> Layout | None:
    if not os.path.isfile(os.path.join(build, "searchindex.js")):
        return None
    for sub in SPHINX_DIRS:
        config = os.path.join(place, sub, "conf.py")
        if not os.path.isfile(config) or _inside(config, build):
            continue
        source = os.path.dirname(config)
        values = _literals(_text(config), ("extlinks", "templates_path"))
        extlinks = {}
        links = values.get("extlinks")
        if isinstance(links, dict):
            for role, spec in links.items():
                url = spec[0] if isinstance(spec, (tuple, list)) and spec else None
                if isinstance(role, str) and isinstance(url, str):
                    extlinks[role] = url
        templates = values.get("templates_path") or ["_templates"]
        if not isinstance(templates, list | tuple):  # Sphinx's is a list: not one, none read
            templates = []
        return Layout(
            "sphinx", [source], config, flavor="myst", extlinks=extlinks,
            templates=[os.path.join(source, t) for t in templates if isinstance(t, str)],
        )  # fmt: skip
    return None


def _literals(text: str, names: tuple[str, ...]) -> dict[str, object]:
    """Top-level assignments of ``names`` whose values are literals."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return {}
    found: dict[str, object] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id in names:
                    try:
                        found[target.id] = ast.literal_eval(node.value)
                    except (ValueError, TypeError, SyntaxError, RecursionError):
                        pass
    return found


def _hugo(place: str, build: str, generator: str) -> Layout | None:
    configs = [os.path.join(place, n) for n in HUGO_CONFIGS]
    configs.append(os.path.join(place, "config", "_default", "config.toml"))
    configs.append(os.path.join(place, "config", "_default", "hugo.toml"))
    config = next((c for c in configs if os.path.isfile(c)), None)
    if config is None or not os.path.isdir(os.path.join(place, "content")):
        return None
    text = _text(config)
    public = os.path.normpath(os.path.join(place, _key(text, "publishDir") or "public"))
    if build != public and not generator.startswith("hugo"):
        return None
    languages = _text(os.path.join(os.path.dirname(config), "languages.toml")) + "\n" + text
    default = _key(text, "defaultContentLanguage") or "en"
    subdir = (_key(text, "defaultContentLanguageInSubdir") or "").lower() == "true"
    listed = re.search(r"^disableLanguages\s*=\s*\[([^\]]*)\]", text, re.M)
    disabled = set(re.findall(r"['\"]([\w-]+)['\"]", listed.group(1) if listed else ""))
    prefixes: dict[str, str] = {}
    language = None
    for line in languages.split("\n"):
        header = re.match(r"^\s*\[(?:languages\.)?([\w-]+)\]\s*$", line)
        if header:
            language = header.group(1)
        content = re.match(r"^\s*contentDir\s*=\s*['\"]([^'\"]+)", line)
        if content and language not in disabled:
            folder = os.path.normpath(os.path.join(place, content.group(1)))
            if os.path.isdir(folder):
                prefixes[folder] = "" if language == default and not subdir else f"/{language}"
    if not prefixes:
        prefixes = {os.path.join(place, "content"): ""}
    return Layout(
        "hugo", list(prefixes), config, templates=[os.path.join(place, "layouts")],
        flavor="hugo", linkify=True, prefixes=prefixes,
    )  # fmt: skip


def _jekyll(place: str, build: str, generator: str) -> Layout | None:
    for name in ("_config.yml", "_config.yaml", "_config.toml"):
        config = os.path.join(place, name)
        if not os.path.isfile(config):
            continue
        text = _text(config)
        source = os.path.normpath(os.path.join(place, _key(text, "source") or "."))
        site = os.path.normpath(os.path.join(place, _key(text, "destination") or "_site"))
        if build != site and not generator.startswith("jekyll"):
            continue
        templates = [os.path.join(source, "_layouts"), os.path.join(source, "_includes")]
        return Layout("jekyll", [source], config, templates=templates, flavor="jekyll")
    return None


def given(directories: list[str], detected: Layout | None, build: str) -> Layout:
    """The layout of ``--sources DIR...``: the rules of the tool detected
    beside the build, or whose configuration is in (or just above) a
    directory given, apply to the directories given instead of its own."""
    directories = [os.path.abspath(d) for d in directories]
    if detected is None:
        build, generator = os.path.abspath(build), _generator(build)
        for place in (p for d in directories for p in (d, os.path.dirname(d))):
            for find in (_mkdocs, _sphinx, _hugo, _jekyll):
                detected = find(place, build, generator)
                if detected is not None:
                    break
            if detected is not None:
                break
    if detected is None and os.path.isfile(os.path.join(build, "searchindex.js")):
        # a Sphinx build whose conf.py is not found: Sphinx's rules all the same
        detected = Layout("sphinx", directories, flavor="myst")
    if detected is None:
        return Layout(None, directories, flavor="gfm")
    # a directory given that holds the tool's own (Hugo's content/en): those
    detected.directories = [
        d for g in directories for d in ([o for o in detected.directories if _inside(o, g)] or [g])
    ]
    detected.detected = False
    return detected
