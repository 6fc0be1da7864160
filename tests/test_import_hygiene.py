"""Imports point down only (design.md): the rules import nothing of ours outside
``server.rules``; the store and the bus know no room; the room knows no API; no room, API or
store module names a ruleset (they hold a ``Game``). Read from the source with ``ast``."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SERVER = ROOT / "server"


def _module(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    """Every module ``path`` imports (relative imports resolved; ``from a import b`` gives
    both ``a`` and ``a.b``, since ``b`` may be a module)."""
    module = _module(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.add(target)
            found.update(f"{target}.{alias.name}" for alias in node.names)
    return found


MODULES = {_module(p): _imports(p) for p in sorted(SERVER.rglob("*.py"))}


def _ours(imports: set[str]) -> set[str]:
    return {i for i in imports if i == "server" or i.startswith("server.")}


def _under(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def test_the_walk_sees_the_packages() -> None:
    assert "server.rules.game" in MODULES and "server.room.actor" in MODULES
    assert "server.rules.registry" in MODULES["server.room.actor"]
    assert "server.rules.guiyang.engine" in MODULES["server.rules.guiyang.game"]


@pytest.mark.parametrize("module", [m for m in MODULES if _under(m, "server.rules")])
def test_rules_import_nothing_of_ours_outside_the_rules(module: str) -> None:
    outside = {i for i in _ours(MODULES[module]) if not _under(i, "server.rules")}
    assert not outside, f"{module} imports {sorted(outside)}"


@pytest.mark.parametrize(
    "package, forbidden",
    [
        ("server.store", ("server.room", "server.api", "server.audit", "server.bus")),
        ("server.bus", ("server.room", "server.api", "server.store", "server.audit")),
        ("server.room", ("server.api", "server.audit")),
    ],
)
def test_no_module_imports_upward(package: str, forbidden: tuple[str, ...]) -> None:
    bad = {
        (m, i)
        for m, imports in MODULES.items()
        if _under(m, package)
        for i in _ours(imports)
        if any(_under(i, f) for f in forbidden)
    }
    assert not bad, sorted(bad)


@pytest.mark.parametrize("package", ["server.room", "server.api", "server.store", "server.audit"])
def test_room_api_store_and_audit_name_no_ruleset(package: str) -> None:
    bad = {
        (m, i)
        for m, imports in MODULES.items()
        if _under(m, package)
        for i in _ours(imports)
        if _under(i, "server.rules.guiyang")
    }
    assert not bad, sorted(bad)
