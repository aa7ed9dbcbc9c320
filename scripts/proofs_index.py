"""Regenerate the claim table in proofs/README.md (or check it with --check).

The table lists every claim file with its statement, status, relation and the
test files that name it with ``@pytest.mark.claim``.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path
from typing import Dict, List, Set

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from refdp.claims import read_claims  # noqa: E402

BEGIN = "<!-- claims:begin -->"
END = "<!-- claims:end -->"


def claim_marks(tests: Path) -> Dict[str, Set[str]]:
    """Map each claim ID to the test files that name it."""
    found: Dict[str, Set[str]] = {}
    for path in sorted(tests.rglob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "claim"
                and isinstance(node.func.value, ast.Attribute)
                and node.func.value.attr == "mark"
            ):
                for arg in node.args:
                    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                        found.setdefault(arg.value, set()).add(path.relative_to(ROOT).as_posix())
    return found


def table() -> str:
    claims = read_claims(ROOT / "proofs")
    marks = claim_marks(ROOT / "tests")
    rows: List[str] = [
        "| ID | statement | status | relation | tests |",
        "|---|---|---|---|---|",
    ]
    for cid, claim in claims.items():
        tests = ", ".join(f"`{t}`" for t in sorted(marks.get(cid, set()))) or "**none**"
        rows.append(
            f"| [{cid}]({cid}.md) | {claim.statement} | {claim.status} | {claim.relation} | {tests} |"
        )
    return "\n".join(rows)


def render(readme: str) -> str:
    head, _, rest = readme.partition(BEGIN)
    _, _, tail = rest.partition(END)
    return f"{head}{BEGIN}\n{table()}\n{END}{tail}"


def main() -> int:
    path = ROOT / "proofs" / "README.md"
    current = path.read_text(encoding="utf-8")
    wanted = render(current)
    if "--check" in sys.argv[1:]:
        if current != wanted:
            print("proofs/README.md is out of date: run python3 scripts/proofs_index.py")
            return 1
        return 0
    path.write_text(wanted, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
