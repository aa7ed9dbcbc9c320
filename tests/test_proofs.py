"""The claims convention: every claim is tested, every tested claim exists, the index is current."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from refdp.proofs_reader import proofs_dir, read_claims

ROOT = Path(__file__).resolve().parent.parent


def _index_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("proofs_index", ROOT / "scripts" / "proofs_index.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["proofs_index"] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.smoke
def test_claim_files_parse() -> None:
    claims = read_claims(proofs_dir())
    assert claims, "proofs/ has no claim files"


def test_every_claim_has_a_test_and_every_test_names_a_known_claim() -> None:
    claims = set(read_claims(proofs_dir()))
    marks = _index_module().claim_marks(ROOT / "tests")
    untested = sorted(claims - set(marks))
    unknown = sorted(set(marks) - claims)
    assert not untested, f"claims with no test: {untested}"
    assert not unknown, f"tests name unknown claims: {unknown}"


def test_index_is_current() -> None:
    index = _index_module()
    readme = (ROOT / "proofs" / "README.md").read_text(encoding="utf-8")
    assert readme == index.render(readme), "run: python3 scripts/proofs_index.py --write"


def test_claim_status_module_is_current() -> None:
    from refdp.proofs_index import STATUS

    text = (ROOT / "refdp" / "proofs_index.py").read_text(encoding="utf-8")
    assert text == _index_module().status_module(), "run: python3 scripts/proofs_index.py --write"
    assert STATUS == {cid: claim.status for cid, claim in read_claims(proofs_dir()).items()}


def test_index_check_reports_a_stale_status_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    index = _index_module()
    stale = tmp_path / "proofs_index.py"
    stale.write_text(index.status_module().replace('"proved"', '"published-but-unsound"', 1), encoding="utf-8")
    monkeypatch.setattr(index, "STATUS_MODULE", stale)
    assert index.main(["--check"]) == 1
    assert index.stale() == [stale]


def test_claims_used_by_algorithms_exist() -> None:
    from refdp.algorithms import algorithm_names, get_algorithm

    claims = set(read_claims(proofs_dir()))
    for name in algorithm_names():
        missing = set(get_algorithm(name).claims) - claims
        assert not missing, f"{name} rests on unknown claims {sorted(missing)}"


def test_readme_errata_table_lists_every_unsound_published_claim() -> None:
    """The auditors' errata table in README.md names exactly the published-but-unsound claims."""
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    section = readme.split("**Errata: published claims that fail.**", 1)[1].split("\n## ", 1)[0]
    listed = {line.split("](", 1)[0].lstrip("| [") for line in section.splitlines() if line.startswith("| [")}
    unsound = {c.id for c in read_claims(proofs_dir()).values() if c.status == "published-but-unsound"}
    assert listed == unsound, f"missing: {sorted(unsound - listed)}; not unsound: {sorted(listed - unsound)}"


def _resolves(reference: str) -> bool:
    """Whether a dotted ``refdp...`` name is a module, or an attribute chain of the longest module it starts with."""
    import importlib

    parts = reference.split(".")
    for i in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for name in parts[i:]:
            if not hasattr(found, name):
                return False
            found = getattr(found, name)
        return True
    return False


def test_every_code_name_a_proof_cites_exists() -> None:
    # A proof that names code moved or renamed since points an auditor nowhere.
    import re

    cited = [
        (path.name, name)
        for path in sorted(proofs_dir().glob("*.md"))
        for name in re.findall(r"`(refdp(?:\.\w+)+)`", path.read_text(encoding="utf-8"))
    ]
    assert len(cited) > 20
    assert [c for c in cited if not _resolves(c[1])] == []
