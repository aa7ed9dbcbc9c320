"""The files refdp reads and writes: JSON read defensively, output written whole or not at all.

Model, schema and vector files come from users, so :func:`read_json` turns
every way such a file can be unreadable -- not UTF-8, not JSON, nested so
deeply that the parser would exhaust the stack, an integer too long to
convert, ``NaN`` or ``Infinity`` (not JSON numbers) -- into one refdp error
naming the file.

:func:`write_text` writes a temporary file beside the target and renames it
over the target, so an interrupted or failed run never leaves a truncated
model or report behind.
"""

from __future__ import annotations

import errno
import json
import os
import secrets
from pathlib import Path
from typing import Any, NoReturn, Type, Union

from refdp.errors import RefdpError

__all__ = ["read_json", "parse_json", "write_text"]

PathLike = Union[str, "os.PathLike[str]"]


def _no_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not a JSON number (JSON numbers are finite)")


def parse_json(text: str, what: str, error: Type[RefdpError]) -> Any:
    """The JSON value in ``text`` (``what`` names it in the messages); ``error`` on anything malformed."""
    try:
        return json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise error(f"{what} is not JSON ({exc.msg} at line {exc.lineno})") from None
    except RecursionError:
        raise error(f"{what} is nested too deeply to be a refdp file") from None
    except ValueError as exc:  # an integer beyond the conversion limit, NaN or Infinity
        raise error(f"{what} is not valid JSON for refdp: {str(exc).split(';')[0]}") from None


def read_json(path: PathLike, what: str, error: Type[RefdpError]) -> Any:
    """The JSON value in the file at ``path``; ``error`` when it is not UTF-8 JSON refdp can read.

    A missing or unreadable file raises the :class:`OSError` (the command
    line prints it as one line).
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise error(f"{what} {os.fspath(path)} is not a text file (refdp reads UTF-8 JSON)") from None
    return parse_json(text, f"{what} {os.fspath(path)}", error)


def write_text(path: PathLike, text: str) -> None:
    """Write ``text`` to ``path`` (UTF-8) atomically: all of it, or nothing and the old file kept."""
    target = Path(path)
    if target.is_dir():
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(target))
    temporary = target.parent / f".{target.name}.{secrets.token_hex(6)}.tmp"
    try:
        # mode 0o666 lets the umask decide the permissions, as for any new file
        handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except OSError as exc:  # name the file asked for, not the temporary one
        raise OSError(exc.errno, exc.strerror, str(target)) from None
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as stream:
            stream.write(text)
        os.replace(temporary, target)
    except BaseException:
        os.unlink(temporary)
        raise
