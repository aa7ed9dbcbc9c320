"""Write the pre-encoded form (refdp/data/codes.py) of the large vendored data sets.

    python3 scripts/encode_builtin.py           # rewrite refdp/data/files/*.codes from the text files
    python3 scripts/encode_builtin.py --check   # exit 1 when a .codes file differs from the text

Run it after a change of a vendored text file or of its schema; a test
(tests/test_data_builtin.py) checks that each .codes file loads the same data
set as its text file.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Callable, Dict, List

from refdp.data import builtin
from refdp.data.codes import encode
from refdp.data.dataset import Dataset

FILES = Path(builtin.__file__).resolve().parent / "files"
PARSERS: Dict[str, Callable[[], Dataset]] = {
    "adult.data": builtin._parse_adult,
    "adult.test": builtin._parse_adult_test,
}


def main(argv: List[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args(argv)
    stale = []
    for name, parse in PARSERS.items():
        path = FILES / f"{name}.codes"
        blob = encode(parse())
        if args.check:
            if not path.is_file() or path.read_bytes() != blob:
                stale.append(name)
        else:
            path.write_bytes(blob)
            print(f"wrote {path.relative_to(FILES.parent.parent.parent)} ({len(blob):,} bytes)")
    for name in stale:
        print(f"encode_builtin: {name}.codes is not the encoding of {name}; run python3 scripts/encode_builtin.py")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
