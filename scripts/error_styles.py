"""Count the error-handling styles in rea/ and effects/, per file (issue 31, item 3).

The house style is one: a program asks with `value = yield from need(effect)` (or `must(result)` for a pure
`Result`), which ends it with its error; functions below programs return `Result[T, ReaError]`. Everything
else is counted here so a ratchet (tests/core/test_house_style.py) can hold the total down until it reaches zero:

- `is_successful`: a `Result` tested by hand (`if not is_successful(x): return failed(...)`)
- `isinstance`: `isinstance(x, Success)` / `isinstance(x, Failure)`
- `T | ReaError`: a value or an error in one union
- `ReaError | None`: an error or nothing
- `tuple`: a `(value, error)` pair (a tuple annotation that carries a `ReaError`)
- `Outcome | tuple`: a helper that returns either the program's end or its values (early exits)

The styles are read from the syntax tree (annotations and calls), so comments and prose never count.
Run `python3 scripts/error_styles.py` for the table.
"""

from __future__ import annotations

import ast
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STYLES = ("is_successful", "isinstance", "T | ReaError", "ReaError | None", "tuple", "Outcome | tuple")


def _union(node: ast.expr) -> list[ast.expr]:
    """The members of an `A | B | C` annotation (one member when it is not a union)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _union(node.left) + _union(node.right)
    return [node]


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Subscript):
        return _name(node.value)
    if isinstance(node, ast.Constant) and node.value is None:
        return "None"
    return node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""


def _annotation_styles(node: ast.expr) -> Iterator[str]:
    """The styles one annotation spells; a union is judged whole, a tuple of an error once."""
    members = _union(node)
    names = {_name(m) for m in members}
    if len(members) > 1 and "Outcome" in names and "tuple" in names:
        yield "Outcome | tuple"
    elif len(members) > 1 and "ReaError" in names:
        yield "ReaError | None" if names <= {"ReaError", "None"} else "T | ReaError"
    elif _name(node) == "tuple" and any(_name(n) == "ReaError" for n in ast.walk(node)):
        yield "tuple"
        return
    for member in members:
        for child in ast.iter_child_nodes(member):
            if isinstance(child, ast.expr):
                yield from _annotation_styles(child)


def _annotations(tree: ast.AST) -> Iterator[ast.expr]:
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.returns is not None:
            yield node.returns
        elif isinstance(node, ast.arg) and node.annotation is not None:
            yield node.annotation
        elif isinstance(node, ast.AnnAssign):
            yield node.annotation
        elif isinstance(node, ast.Assign) and _is_alias(node.value):
            yield node.value


def _is_alias(value: ast.expr) -> bool:
    """A type alias that names the error (`Answered = tuple[...] | ReaError`)."""
    shaped = isinstance(value, ast.Subscript) or (isinstance(value, ast.BinOp) and isinstance(value.op, ast.BitOr))
    return shaped and any(isinstance(n, ast.Name) and n.id == "ReaError" for n in ast.walk(value))


def _call_styles(tree: ast.AST) -> Iterator[str]:
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        if _name(node.func) == "is_successful":
            yield "is_successful"
        elif _name(node.func) == "isinstance" and len(node.args) == 2:
            kinds = node.args[1].elts if isinstance(node.args[1], ast.Tuple) else [node.args[1]]
            if any(_name(k) in ("Success", "Failure") for k in kinds):
                yield "isinstance"


def styles_in(tree: ast.AST) -> Counter[str]:
    """How often each non-conforming style occurs in a syntax tree (a module, or one function of it)."""
    counts: Counter[str] = Counter(_call_styles(tree))
    for annotation in _annotations(tree):
        counts.update(_annotation_styles(annotation))
    return counts


def file_styles(path: Path) -> Counter[str]:
    """How often each non-conforming style occurs in one source file."""
    return styles_in(ast.parse(path.read_text(encoding="utf-8")))


def measure(root: Path = ROOT) -> dict[str, Counter[str]]:
    """Every file of rea/ and effects/ that uses a style, by its path relative to the project."""
    found = {}
    for package in ("rea", "effects"):
        for path in sorted((root / package).rglob("*.py")):
            counts = file_styles(path)
            if counts:
                found[path.relative_to(root).as_posix()] = counts
    return found


def main() -> int:
    found = measure()
    totals: Counter[str] = sum(found.values(), Counter())
    for style in STYLES:
        print(f"{style:>16}  {totals[style]:5d}  in {sum(1 for c in found.values() if c[style])} files")
    print(f"{'total':>16}  {sum(totals.values()):5d}  in {len(found)} files")
    if "--files" in sys.argv:
        for name, counts in sorted(found.items(), key=lambda kv: -sum(kv[1].values())):
            print(f"{sum(counts.values()):4d}  {name}  {dict(counts)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
