"""A submission from archive to accepted or rejected: unpacked into its own folder,
built there in the sandbox, then checked by ``bot check`` in the sandbox.

The build runs ``build`` from the manifest with ``sh -c`` in the submission's own
folder, which it alone may write to; under bubblewrap it sees the system and that
folder only, with no network (``npm ci --offline``, ``make``, ``cargo build
--offline`` work; a download does not), within the arena's limits and
``build_time``. The check plays ``check_matches`` matches against built-ins as a
tournament would run the bot. The author reads every line of both.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
from dataclasses import dataclass
from pathlib import Path

from leastscore.bots.check import check_program
from leastscore.bots.settings import CheckSettings
from leastscore.seats.sandbox import Containment, hand_over

from .config import ArenaConfig
from .upload import Manifest, UploadRefused, read_manifest, unpack

LOG_CAP = 64 * 1024
"""Bytes of build output kept for the author (the end of it, when longer)."""


@dataclass(frozen=True)
class Verdict:
    """Whether a submission plays, what the author is shown, and how it runs."""

    accepted: bool
    log: str
    run: str | None


def receive(archive: bytes, folder: Path, config: ArenaConfig) -> Manifest:
    """Unpack an uploaded archive into ``folder`` (made here, empty); on a refusal the
    folder is removed and ``UploadRefused`` says why."""
    folder.mkdir(parents=True)
    try:
        return unpack(archive, folder, config.max_upload_mb, config.max_files)
    except UploadRefused:
        shutil.rmtree(folder, ignore_errors=True)
        raise


async def judge(folder: Path, config: ArenaConfig) -> Verdict:
    """Build the submission in ``folder`` and check it; never raises for what the bot
    does (a failed build, a crash at start): that is a rejection with its log."""
    try:
        manifest = read_manifest(folder)
    except UploadRefused as e:
        return Verdict(False, f"rejected: {e}\n", None)
    containment = Containment.make(config.sandbox, config.limits)
    log = [containment.describe()]  # "sandbox: ..."
    if manifest.build:
        built, output = await build(manifest.build, folder, containment, config.build_time)
        log += [f"$ {manifest.build}", output.rstrip("\n")]
        if not built:
            log.append("rejected: the build failed")
            return Verdict(False, "\n".join(log) + "\n", None)
    settings = CheckSettings(
        matches=config.check_matches,
        seats=min(config.seats, 3),
        move_time=config.move_time,
        sandbox=config.sandbox,
        limits=config.limits,
    )
    report = await check_program(manifest.argv(), settings, cwd=str(folder))
    log += [f"$ leastscore bot check {manifest.run}", report.text().rstrip("\n")]
    accepted = report.compliant
    log.append("accepted: it plays from now on" if accepted else "rejected: the check failed")
    return Verdict(accepted, "\n".join(log) + "\n", manifest.run if accepted else None)


async def build(
    command: str, folder: Path, containment: Containment, seconds: float
) -> tuple[bool, str]:
    """Run ``command`` in ``folder`` (writable to it alone); whether it succeeded, and
    its output (stdout and stderr together, the end of it when long)."""
    group = containment.cgroup()
    try:
        hand_over(folder, containment.user)  # the build's user writes there, and no other
        with containment.command(["sh", "-c", command], str(folder), writable=True) as (
            argv,
            handed,
        ):
            proc = await asyncio.create_subprocess_exec(
                *argv,
                cwd=folder,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
                preexec_fn=containment.preexec(group),
                start_new_session=True,
                pass_fds=handed,
            )
    except OSError as e:
        if group is not None:
            group.remove()
        return False, f"could not start the build: {e}"
    try:
        output, _ = await asyncio.wait_for(proc.communicate(), seconds)
    except TimeoutError:
        os.killpg(proc.pid, signal.SIGKILL)  # the build's whole session: make and its children
        await proc.wait()
        return False, f"the build took longer than {seconds:g} s and was stopped"
    finally:
        if group is not None:
            group.remove()
    text = output[-LOG_CAP:].decode("utf-8", "replace")
    if proc.returncode != 0:
        text += f"\nthe build exited with status {proc.returncode}"
    return proc.returncode == 0, text
