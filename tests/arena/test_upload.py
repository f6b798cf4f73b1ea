"""What an author uploads is unpacked inside its own folder or not at all."""

from __future__ import annotations

import io
import os
import tarfile
from pathlib import Path

import pytest
from leastscore.arena.upload import (
    Manifest,
    UploadRefused,
    content_hash,
    pack,
    pack_built,
    unpack,
    unpack_built,
)

RUN = b'run = "python3 bot.py"\n'


def archive(*members: tuple[tarfile.TarInfo, bytes | None]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for info, data in members:
            if data is not None:
                info.size = len(data)
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return buffer.getvalue()


def file(name: str, data: bytes = b"x") -> tuple[tarfile.TarInfo, bytes]:
    return tarfile.TarInfo(name), data


def special(name: str, kind: bytes, target: str = "") -> tuple[tarfile.TarInfo, None]:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, target
    return info, None


def test_a_plain_folder_unpacks_with_its_manifest(tmp_path: Path) -> None:
    made = archive(file("bot.toml", RUN + b'build = "true"\n'), file("src/bot.py", b"print()"))
    assert unpack(made, tmp_path, 1, 100) == Manifest(run="python3 bot.py", build="true")
    assert (tmp_path / "src" / "bot.py").read_bytes() == b"print()"


@pytest.mark.parametrize(
    ("member", "why"),
    [
        (file("../escape.py"), "outside the folder"),
        (file("a/../../escape.py"), "outside the folder"),
        (file("/etc/passwd"), "outside the folder"),
        (special("link", tarfile.SYMTYPE, "/etc/passwd"), "is a link"),
        (special("inner", tarfile.SYMTYPE, "bot.toml"), "is a link"),
        (special("hard", tarfile.LNKTYPE, "bot.toml"), "is a link"),
        (special("null", tarfile.CHRTYPE), "not a plain file"),
        (special("pipe", tarfile.FIFOTYPE), "not a plain file"),
    ],
)
def test_an_archive_that_reaches_out_is_refused_whole(
    tmp_path: Path, member: tuple[tarfile.TarInfo, bytes | None], why: str
) -> None:
    made = archive(file("bot.toml", RUN), member)
    with pytest.raises(UploadRefused, match=why):
        unpack(made, tmp_path / "in", 1, 100)
    assert not (tmp_path / "in").exists() or not any((tmp_path / "in").iterdir())
    assert not (tmp_path / "escape.py").exists()


def test_the_caps_hold(tmp_path: Path) -> None:
    big = archive(file("bot.toml", RUN), file("noise", bytes(range(256)) * 8000))
    with pytest.raises(UploadRefused, match="the cap is"):
        unpack(big, tmp_path, 0, 100)
    many = archive(file("bot.toml", RUN), *(file(f"f{i}") for i in range(20)))
    with pytest.raises(UploadRefused, match=r"2[01] files"):
        unpack(many, tmp_path, 1, 10)
    bomb = archive(file("bot.toml", RUN), file("zeros", bytes(11_000_000)))  # packs small
    assert len(bomb) < 1_000_000
    with pytest.raises(UploadRefused, match="unpacked"):
        unpack(bomb, tmp_path, 1, 100)


def test_garbage_and_a_missing_manifest_are_refused(tmp_path: Path) -> None:
    with pytest.raises(UploadRefused, match="not a gzipped tar"):
        unpack(b"not an archive", tmp_path / "a", 1, 100)
    with pytest.raises(UploadRefused, match=r"no bot\.toml"):
        unpack(archive(file("bot.py")), tmp_path / "b", 1, 100)
    with pytest.raises(UploadRefused, match=r"bot\.toml"):
        unpack(archive(file("bot.toml", b"run = 3\n")), tmp_path / "c", 1, 100)


def test_pack_leaves_out_caches_and_refuses_links(tmp_path: Path) -> None:
    (tmp_path / "bot.toml").write_bytes(RUN)
    (tmp_path / "bot.py").write_text("print()")
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "bot.pyc").write_bytes(b"\0")
    with tarfile.open(fileobj=io.BytesIO(pack(tmp_path))) as packed:
        names = packed.getnames()
    assert sorted(names) == ["bot.py", "bot.toml"]
    (tmp_path / "peek").symlink_to("/etc/passwd")
    with pytest.raises(UploadRefused, match="is a link"):
        pack(tmp_path)


def test_a_built_folder_travels_whole_but_no_link_leads_out(tmp_path: Path) -> None:
    """What a build made goes to a cluster's workers as it is, links inside included;
    a link out of the folder (a build may make one) is left out on the worker."""
    built = tmp_path / "built"
    (built / "lib").mkdir(parents=True)
    (built / "bot.toml").write_text('run = "./bot"\n')
    (built / "lib" / "code.txt").write_text("code")
    os.symlink("lib/code.txt", built / "inside")
    os.symlink("/etc/passwd", built / "outside")
    os.symlink("../../secret", built / "climbs")
    into = tmp_path / "worker"
    into.mkdir()
    unpack_built(pack_built(built), into)
    assert (into / "inside").read_text() == "code"
    assert (into / "lib" / "code.txt").read_text() == "code"
    assert not (into / "outside").exists() and not (into / "outside").is_symlink()
    assert not (into / "climbs").is_symlink()


def test_a_folder_s_hash_is_what_it_holds_and_nothing_else(tmp_path: Path) -> None:
    """A cluster keys each version's copy by this hash: the same files built again (at
    another time) hash the same; a byte, a mode, a name or a link's target more or less
    does not."""

    def built(name: str, code: str = "code", target: str = "lib/code.txt") -> Path:
        folder = tmp_path / name
        (folder / "lib").mkdir(parents=True)
        (folder / "bot.toml").write_text('run = "./bot"\n')
        (folder / "lib" / "code.txt").write_text(code)
        os.symlink(target, folder / "link")
        return folder

    first = built("first")
    again = built("again")
    os.utime(again / "lib" / "code.txt", (1, 1))  # built an hour, a year later: the same
    assert content_hash(first) == content_hash(again)
    assert content_hash(built("byte", code="cods")) != content_hash(first)
    assert content_hash(built("target", target="bot.toml")) != content_hash(first)
    (again / "bot.toml").chmod(0o755)
    assert content_hash(again) != content_hash(first)
    (first / "lib" / "more").mkdir()
    assert content_hash(first) != content_hash(built("fewer"))
