"""``--out`` of every command: a regular file written atomically; nothing else replaced.

A directory, device node, FIFO or socket at ``--out`` is refused before any
work, with one line naming ``--out``, and left as it was; a symbolic link is
followed to the file it names (the link stays); a missing directory names
``--out``.  The device node is made in a temporary directory (only root may
make one); nothing here writes near ``/dev``.
"""

from __future__ import annotations

import os
import socket
import stat
from pathlib import Path
from typing import Callable, Iterator, List, Tuple

import pytest

import refdp.algorithms
from refdp.algorithms import read_model, train
from refdp.cli import main
from refdp.data import load
from refdp.errors import InvalidParameterError
from refdp.files import check_writable, write_text
from refdp.tree import dumps_model


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _folder(path: Path) -> None:
    path.mkdir()


def _device(path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("only root can make a device node")
    os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # /dev/null's numbers, in a temporary directory


def _link_to_folder(path: Path) -> None:
    (path.parent / "real-folder").mkdir()
    path.symlink_to(path.parent / "real-folder")


SPECIAL: List[Tuple[str, Callable[[Path], None], str]] = [
    ("fifo", _fifo, "a FIFO"),
    ("folder", _folder, "a directory"),
    ("device", _device, "a character device"),
    ("link to a folder", _link_to_folder, "a directory"),
]


@pytest.fixture
def sock(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    yield path
    server.close()


def _kind(path: Path) -> int:
    return stat.S_IFMT(os.lstat(path).st_mode)


def _commands(tmp_path: Path, out: Path) -> List[List[str]]:
    model = tmp_path / "model.json"
    if not model.exists():
        model.write_text(dumps_model(train("noisy-majority", load("vote"), 1, rng=1)), encoding="utf-8")
    return [
        ["train", "--algorithm", "noisy-majority", "--data", "vote", "--epsilon", "1", "--out", str(out)],
        ["predict", "--model", str(model), "--data", "vote", "--out", str(out)],
        ["schema", "--data", "vote", "--out", str(out)],
    ]


@pytest.mark.parametrize("name, make, kind", SPECIAL, ids=[s[0] for s in SPECIAL])
def test_every_command_refuses_a_special_file_at_out_and_leaves_it(
    name: str, make: Callable[[Path], None], kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    make(out)
    before = _kind(out)
    for argv in _commands(tmp_path, out):
        status = main(argv)
        stdout, err = capsys.readouterr()
        assert status == 2 and stdout == "", (argv, err)
        assert err.startswith(f"refdp: error: --out {out} is {kind}") and err.count("\n") == 1, err
        assert _kind(out) == before, f"{argv[0]} replaced the {name}"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        {"out", "model.json"} | ({"real-folder"} if name == "link to a folder" else set())
    ), "a temporary file was left behind"


def test_a_socket_at_out_is_refused(sock: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["schema", "--data", "vote", "--out", str(sock)])
    _, err = capsys.readouterr()
    assert status == 2 and "--out" in err and "a socket" in err, err
    assert stat.S_ISSOCK(os.lstat(sock).st_mode)


def test_the_refusal_comes_before_training(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("trained although --out cannot be written")

    monkeypatch.setattr(refdp.algorithms, "train", never)  # the command imports it when it runs
    out = tmp_path / "fifo"
    os.mkfifo(out)
    status = main(["train", "--algorithm", "noisy-majority", "--data", "vote", "--epsilon", "1", "--out", str(out)])
    assert status == 2 and "is a FIFO" in capsys.readouterr().err


def test_vectors_refuse_a_fifo_in_the_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    os.mkfifo(tmp_path / "lqs.json")
    status = main(["vectors", "--out", str(tmp_path)])
    _, err = capsys.readouterr()
    assert status == 2 and f"--out {tmp_path / 'lqs.json'} is a FIFO" in err, err
    assert stat.S_ISFIFO(os.lstat(tmp_path / "lqs.json").st_mode)


def test_a_link_is_followed_to_its_file_and_stays_a_link(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    real = tmp_path / "kept" / "model.json"
    real.parent.mkdir()
    real.write_text("old\n", encoding="utf-8")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    status = main(["train", "--algorithm", "noisy-majority", "--data", "vote", "--epsilon", "1", "--seed", "1",
                   "--out", str(link)])
    assert status == 0, capsys.readouterr().err
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert read_model(real).algorithm == "noisy-majority"
    assert sorted(p.name for p in real.parent.iterdir()) == ["model.json"]


def test_a_dangling_link_makes_the_file_it_names(tmp_path: Path) -> None:
    link = tmp_path / "link.txt"
    link.symlink_to(tmp_path / "new.txt")
    write_text(link, "hello\n")
    assert link.is_symlink() and (tmp_path / "new.txt").read_text(encoding="utf-8") == "hello\n"


def test_a_regular_file_is_replaced_keeping_its_permissions(tmp_path: Path) -> None:
    target = tmp_path / "report.txt"
    target.write_text("old\n", encoding="utf-8")
    target.chmod(0o640)
    inode = os.stat(target).st_ino
    write_text(target, "new\n")
    assert target.read_text(encoding="utf-8") == "new\n"
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o640
    assert os.stat(target).st_ino != inode, "written in place, not replaced atomically"
    assert [p.name for p in tmp_path.iterdir()] == ["report.txt"]


def test_a_missing_folder_names_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "no" / "such" / "m.json"
    for argv in _commands(tmp_path, out):
        status = main(argv)
        _, err = capsys.readouterr()
        assert status == 2 and err.startswith(f"refdp: error: --out {out}: the directory") and "does not exist" in err


def test_the_api_names_what_it_was_given(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "f")
    with pytest.raises(InvalidParameterError, match="^the report .* is a FIFO"):
        write_text(tmp_path / "f", "x", what="the report")
    with pytest.raises(InvalidParameterError, match="does not exist"):
        check_writable(tmp_path / "none" / "f")
    check_writable(tmp_path / "new")  # a new file in an existing folder is fine
