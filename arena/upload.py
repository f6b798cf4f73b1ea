"""A submitted bot folder: packed by the author, unpacked by the arena with nothing let
out of its folder, and the manifest that says how the bot is built and run.

The archive is a gzipped tar of the folder. The arena takes only plain files and
folders: a link (symbolic or hard), a device, a pipe, a name that climbs out
(``../``) or starts at the root is refused with the name, and so are an archive
over the size cap, more files than the cap, or more bytes unpacked than the cap
allows; nothing is written until every member has been looked at. The manifest,
``bot.toml`` at the top of the folder::

    run = "python3 bot.py"     # how to start it (from its own folder)
    build = "make"             # optional: run once, in the sandbox, with no network
"""

from __future__ import annotations

import hashlib
import io
import os
import posixpath
import shlex
import stat
import tarfile
import tomllib
from pathlib import Path

import msgspec

MANIFEST = "bot.toml"
SKIPPED = frozenset({".git", "__pycache__", ".venv", ".pytest_cache"})
"""Folders ``pack`` leaves out: history and caches (``node_modules`` goes: builds have no
network to fetch it again)."""
UNPACKED_PER_PACKED = 10
"""The most an archive may grow to, unpacked, as a multiple of the upload cap."""


class UploadRefused(ValueError):
    """An archive or a manifest the arena will not take; the message says why."""


class Manifest(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """How a submitted bot is built and run, in the author's own words."""

    run: str
    build: str | None = None

    def argv(self) -> list[str]:
        return shlex.split(self.run)


def read_manifest(folder: Path) -> Manifest:
    path = folder / MANIFEST
    if not path.is_file():
        raise UploadRefused(f"no {MANIFEST} in the folder: it says how to run the bot")
    try:
        manifest = msgspec.convert(tomllib.loads(path.read_text("utf-8")), Manifest)
    except (tomllib.TOMLDecodeError, msgspec.ValidationError, UnicodeDecodeError) as e:
        raise UploadRefused(f"{MANIFEST}: {e}") from None
    try:
        if not manifest.argv():
            raise UploadRefused(f"{MANIFEST}: run is empty")
    except ValueError as e:
        raise UploadRefused(f"{MANIFEST}: run: {e}") from None
    return manifest


def pack(folder: Path) -> bytes:
    """``folder`` as a gzipped tar, for ``arena submit``: its files and folders (not
    the caches in ``SKIPPED``); a link in it is refused (the arena would refuse it)."""
    read_manifest(folder)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for root, dirs, files in os.walk(folder):
            dirs[:] = sorted(d for d in dirs if d not in SKIPPED)
            for name in sorted([*dirs, *files]):
                path = Path(root, name)
                if path.is_symlink():
                    raise UploadRefused(f"{path} is a link: copy what it points to instead")
                tar.add(path, arcname=str(path.relative_to(folder)), recursive=False)
    return buffer.getvalue()


def unpack(archive: bytes, into: Path, max_mb: int, max_files: int) -> Manifest:
    """Unpack a submitted archive into the empty folder ``into`` and read its manifest;
    ``UploadRefused`` saying why, with nothing written, when it breaks a rule."""
    if len(archive) > max_mb * 1_000_000:
        raise UploadRefused(f"the archive is {len(archive):,} bytes: the cap is {max_mb} MB")
    try:
        with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
            members = tar.getmembers()
            _check_members(members, max_mb * 1_000_000 * UNPACKED_PER_PACKED, max_files)
            tar.extractall(into, members=members, filter="data")
    except (tarfile.TarError, EOFError, OSError) as e:
        raise UploadRefused(f"not a gzipped tar archive: {e}") from None
    return read_manifest(into)


def pack_built(folder: Path) -> bytes:
    """An accepted version's folder as the arena built it, whole (its links and caches
    too), for a cluster's workers, which have no copy of the arena's folder."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=1) as tar:
        tar.add(folder, arcname=".")
    return buffer.getvalue()


def content_hash(folder: Path) -> str:
    """What ``folder`` holds, as a SHA-256 (hex): every name, kind, mode, link target
    and byte, in a fixed order, and nothing else (not when a file was made), so that
    two builds that made the same files have the same hash and any two that differ
    in one byte or one mode do not. A cluster's copy of a version is keyed by it."""
    digest = hashlib.sha256()
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        for name in sorted([*dirs, *files]):
            path = Path(root, name)
            kind, mode, body = _entry(path)
            where = str(path.relative_to(folder)).encode()
            digest.update(f"{kind} {mode:o} {len(where)} {len(body)}\n".encode() + where + body)
    return digest.hexdigest()


def _entry(path: Path) -> tuple[str, int, bytes]:
    """One entry of a folder for its hash: its kind, its mode and what it holds (a
    file's bytes, a link's target)."""
    info = path.lstat()
    mode = stat.S_IMODE(info.st_mode)
    if stat.S_ISLNK(info.st_mode):
        return "l", mode, os.readlink(path).encode()
    if stat.S_ISREG(info.st_mode):
        return "f", mode, path.read_bytes()
    return ("d" if stat.S_ISDIR(info.st_mode) else "o"), mode, b""


def unpack_built(archive: bytes, into: Path) -> None:
    """``pack_built``'s archive unpacked on a worker. A build may have made anything,
    so what would land outside ``into`` (a link out, a device) is left out."""
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
        tar.extractall(into, filter=_inside)


def _inside(member: tarfile.TarInfo, path: str) -> tarfile.TarInfo | None:
    try:
        return tarfile.data_filter(member, path)
    except tarfile.FilterError:
        return None


def _check_members(members: list[tarfile.TarInfo], max_bytes: int, max_files: int) -> None:
    if len(members) > max_files:
        raise UploadRefused(f"{len(members)} files and folders: the cap is {max_files}")
    total = 0
    for member in members:
        name = member.name
        parts = posixpath.normpath(name).split("/")
        if name.startswith("/") or ".." in parts or name.startswith("\\"):
            raise UploadRefused(f"{name!r} is outside the folder")
        if member.issym() or member.islnk():
            raise UploadRefused(f"{name!r} is a link: links are not taken")
        if not (member.isfile() or member.isdir()):
            raise UploadRefused(f"{name!r} is not a plain file or folder")
        total += member.size
        if total > max_bytes:
            raise UploadRefused(f"the files come to more than {max_bytes:,} bytes unpacked")
