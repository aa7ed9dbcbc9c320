"""The files refdp reads and writes: JSON read defensively, output written whole or not at all.

Model, schema and vector files come from users, so :func:`read_json` turns
every way such a file can be unreadable -- not UTF-8, not JSON, nested so
deeply that the parser would exhaust the stack, an integer too long to
convert, ``NaN`` or ``Infinity`` (not JSON numbers) -- into one refdp error
naming the file.

:func:`write_text` writes a temporary file beside the target and renames it
over the target, so an interrupted or failed run never leaves a truncated
model or report behind.  It replaces only a regular file: an existing
directory, device node, FIFO or socket is refused, never replaced (the
rename would put a file where ``/dev/null`` was).  A symbolic link is
followed: the file it points to is written (atomically, by the same rules)
and the link stays, as a shell's ``>`` would treat it.
"""

from __future__ import annotations

import json
import os
import secrets
import stat
from pathlib import Path
from typing import Any, NoReturn, Optional, Tuple, Type, Union

from refdp.errors import InvalidParameterError, RefdpError

__all__ = ["check_writable", "read_json", "parse_json", "write_text"]

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
    """The JSON value in the file at ``path``; ``error`` when it is missing, unreadable or not UTF-8 JSON.

    >>> read_json("/no/such/model.json", "model file", RefdpError)
    Traceback (most recent call last):
    refdp.errors.RefdpError: cannot read model file /no/such/model.json: No such file or directory
    """
    if not isinstance(path, (str, os.PathLike)):
        raise error(f"{what} must be a path (a str or pathlib.Path), got {type(path).__name__}")
    try:
        text = Path(path).read_text(encoding="utf-8-sig")  # a byte-order mark is skipped
    except UnicodeDecodeError:
        raise error(f"{what} {os.fspath(path)} is not a text file (refdp reads UTF-8 JSON)") from None
    except OSError as exc:
        raise error(f"cannot read {what} {os.fspath(path)}: {exc.strerror or exc}") from None
    return parse_json(text, f"{what} {os.fspath(path)}", error)


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
        (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def _existing_mode(target: Path, shown: str) -> Optional[int]:
    """The permission bits of the regular file at ``target``, None if nothing is there; refuse anything else."""
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise InvalidParameterError(f"cannot write {shown}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(mode):
        raise InvalidParameterError(
            f"{shown} is {_kind(mode)}; refdp writes only regular files (and replaces only regular files): "
            "give the path of a file"
        )
    return stat.S_IMODE(mode)


def _target(path: PathLike, shown: str) -> Tuple[Path, Optional[int]]:
    target = Path(os.path.realpath(path))
    mode = _existing_mode(target, shown)
    if not target.parent.is_dir():
        raise InvalidParameterError(f"{shown}: the directory {target.parent} does not exist; create it first")
    return target, mode


def check_writable(path: PathLike, what: str = "--out") -> None:
    """Refuse, before any work, a ``path`` that :func:`write_text` would refuse (see there).

    >>> check_writable("/no/such/folder/model.json")
    Traceback (most recent call last):
    refdp.errors.InvalidParameterError: --out /no/such/folder/model.json: the directory /no/such/folder does not exist; create it first
    """
    _target(path, f"{what} {os.fspath(path)}")


def write_text(path: PathLike, text: str, what: str = "--out") -> None:
    """Write ``text`` to ``path`` (UTF-8) atomically: all of it, or nothing and the old file kept.

    Only a regular file is replaced (keeping its permissions); a link is
    followed to the file it names.  A directory, device, FIFO or socket at
    ``path``, or a missing directory, raises InvalidParameterError naming
    ``what`` and the path.

    >>> import os, shutil, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> write_text(os.path.join(folder, "a.txt"), "hello")
    >>> open(os.path.join(folder, "a.txt")).read()
    'hello'
    >>> write_text(folder, "x")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    refdp.errors.InvalidParameterError: --out ... is a directory; refdp writes only regular files ...
    >>> shutil.rmtree(folder)
    """
    shown = f"{what} {os.fspath(path)}"
    target, mode = _target(path, shown)
    temporary = target.parent / f".{target.name}.{secrets.token_hex(6)}.tmp"
    try:
        # mode 0o666 lets the umask decide the permissions, as for any new file
        handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except OSError as exc:  # name the file asked for, not the temporary one
        raise InvalidParameterError(f"cannot write {shown}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as stream:
            stream.write(text)
        if mode is not None:
            os.chmod(temporary, mode)
        # what is at the target now, not what was there when the work started
        _existing_mode(target, shown)
        os.replace(temporary, target)
    except BaseException:
        os.unlink(temporary)
        raise
