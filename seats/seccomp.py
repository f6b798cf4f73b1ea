"""The system calls a contained program may not make, as a seccomp filter for bubblewrap.

Why a filter on top of namespaces and an unprivileged user: a program's only way out
of its sandbox is through the kernel, and most kernel escapes go through a handful of
calls no card player needs: mounting, making namespaces (a user namespace hands back
every capability inside it), tracing another process, loading kernel code or BPF,
keys, ``io_uring``, device nodes. Each is refused with ``EPERM``; ``clone3``, whose
flags a filter cannot read, answers ``ENOSYS`` so the C library falls back to
``clone``, whose namespace flags are refused one by one. Calls of another
architecture's table kill the program (libseccomp's default).

The filter is compiled by libseccomp, the kernel's own filter library, through
``ctypes``; bubblewrap loads it (``--seccomp FD``) just before it runs the program.
Compiled once per process; every program start gets its own copy in a memory file.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import functools
import os
import stat

DENIED = (
    # mounts and the file system's root
    "mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "fsopen",
    "fsconfig", "fsmount", "fspick", "mount_setattr",
    # namespaces
    "unshare", "setns",
    # other processes
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
    # the kernel itself
    "bpf", "perf_event_open", "userfaultfd", "kexec_load", "kexec_file_load",
    "init_module", "finit_module", "delete_module", "reboot", "swapon", "swapoff",
    "acct", "syslog", "iopl", "ioperm", "quotactl", "lookup_dcookie",
    "keyctl", "add_key", "request_key",
    "io_uring_setup", "io_uring_enter", "io_uring_register",
    # files by handle (they skip the mount namespace's view)
    "open_by_handle_at", "name_to_handle_at",
)  # fmt: skip
"""Refused with ``EPERM`` whatever their arguments."""
NAMESPACE_FLAGS = (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000,
                   0x40000000)  # fmt: skip
"""``clone``'s CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET."""
FILE_KIND = 0o170000
"""``S_IFMT``: the bits of a mode that say what kind of node it is."""
DEVICES = (stat.S_IFCHR, stat.S_IFBLK)
"""Kinds of node ``mknod`` may not make (a FIFO or a plain file it may)."""

_ALLOW = 0x7FFF0000
_MASKED_EQ = 7


def _errno(code: int) -> int:
    return 0x00050000 | (code & 0xFFFF)


class _Compare(ctypes.Structure):
    """libseccomp's ``struct scmp_arg_cmp``: argument ``arg`` compared by ``op``."""

    _fields_ = [
        ("arg", ctypes.c_uint),
        ("op", ctypes.c_int),
        ("datum_a", ctypes.c_uint64),
        ("datum_b", ctypes.c_uint64),
    ]


@functools.cache
def _library() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("seccomp") or "libseccomp.so.2"
    try:
        lib = ctypes.CDLL(name, use_errno=True)
    except OSError:
        return None
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_rule_add_array.argtypes = [
        ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint, ctypes.POINTER(_Compare)
    ]  # fmt: skip
    lib.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
    return lib


def available() -> bool:
    """Whether libseccomp is here to compile the filter (Debian: ``libseccomp2``)."""
    return _library() is not None


@functools.cache
def program() -> bytes:
    """The compiled filter (classic BPF, as ``--seccomp`` reads it); ``OSError`` when
    libseccomp is missing or refuses a rule."""
    lib = _library()
    if lib is None:
        raise OSError("libseccomp is missing (apt-get install libseccomp2)")
    ctx = lib.seccomp_init(_ALLOW)
    if not ctx:
        raise OSError("libseccomp could not start a filter")
    try:
        for name in DENIED:
            _rule(lib, ctx, _errno(errno.EPERM), name)
        _rule(lib, ctx, _errno(errno.ENOSYS), "clone3")
        for flag in NAMESPACE_FLAGS:
            _rule(lib, ctx, _errno(errno.EPERM), "clone", (0, flag, flag))
        for kind in DEVICES:
            _rule(lib, ctx, _errno(errno.EPERM), "mknod", (1, FILE_KIND, kind))
            _rule(lib, ctx, _errno(errno.EPERM), "mknodat", (2, FILE_KIND, kind))
        return _export(lib, ctx)
    finally:
        lib.seccomp_release(ctx)


def _rule(lib: ctypes.CDLL, ctx: int, action: int, name: str,
          masked: tuple[int, int, int] | None = None) -> None:  # fmt: skip
    """Refuse ``name`` (when argument ``masked[0]`` & ``masked[1]`` == ``masked[2]``)."""
    number = lib.seccomp_syscall_resolve_name(name.encode())
    if number < 0:
        return  # not a call of this architecture
    compare = (_Compare * 1)()
    count = 0
    if masked is not None:
        compare[0] = _Compare(masked[0], _MASKED_EQ, masked[1], masked[2])
        count = 1
    done = lib.seccomp_rule_add_array(ctx, action, number, count, compare)
    if done < 0:
        raise OSError(-done, f"libseccomp refused the rule for {name}: {os.strerror(-done)}")


def _export(lib: ctypes.CDLL, ctx: int) -> bytes:
    fd = os.memfd_create("leastscore-seccomp")
    try:
        done = lib.seccomp_export_bpf(ctx, fd)
        if done < 0:
            raise OSError(-done, f"libseccomp could not export the filter: {os.strerror(-done)}")
        os.lseek(fd, 0, os.SEEK_SET)
        chunks = []
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def filter_file() -> int:
    """A new file descriptor holding the filter from its start, for one bubblewrap
    (it reads to the end: each start needs its own). The caller closes it."""
    fd = os.memfd_create("leastscore-seccomp", 0)  # inheritable only where passed
    try:
        os.write(fd, program())
        os.lseek(fd, 0, os.SEEK_SET)
    except BaseException:
        os.close(fd)
        raise
    return fd
