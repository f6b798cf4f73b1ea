"""A protocol-v1 player (raw frames, as stdio_player.py) that does one hostile thing.

    python hostile.py MODE [ARG...]

It plays like stdio_player.py's ``good`` mode, and on its first turn:

- ``forkbomb``: forks up to 2000 sleepers (each ends by itself within a minute);
- ``memory``: fills 10 GB;
- ``connect PORT``: connects to 127.0.0.1:PORT (and says on stderr if it could);
- ``read PATH...``: reads each file (says on stderr which it could);
- ``write PATH...``: writes each file (says on stderr which it could);
- ``snoop PATH...``: lists each folder and reads each file (says on stderr what it saw
  or read, or that it could not);
- ``orphan TOKEN``: leaves a grandchild, in its own session, that sleeps for a minute
  with TOKEN in its command line;
- ``burn``: answers, then a thread burns CPU for good; its next answer waits until the
  process has used 30 CPU seconds;
- ``descriptors``: says on stderr ``HOLDS fd N`` for each descriptor it was started
  with that is not its own stdin, stdout or stderr under another number;
- ``stderr``: writes 10 MB to stderr; ``stdout``: announces a 1 GB frame;
- ``escape``: tries what a program run by root could do to the machine (read
  ``/etc/shadow``, remount its folder writable, mount a cgroup, make a disk's device
  node, make a user namespace) and says on stderr ``ESCAPED: ...`` for each that
  worked, ``held: ...`` for each that did not; and who it is.
"""

import os
import struct
import sys
import threading
import time

import msgspec

mode = sys.argv[1]
args = sys.argv[2:]
out = sys.stdout.buffer
inp = sys.stdin.buffer


def send(message: dict) -> None:
    body = msgspec.msgpack.encode(message)
    out.write(struct.pack(">I", len(body)) + body)
    out.flush()


def say(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def frames():
    while True:
        head = inp.read(4)
        if len(head) < 4:
            return
        (size,) = struct.unpack(">I", head)
        yield msgspec.msgpack.decode(inp.read(size))


def burn() -> None:
    while True:
        pass


def escape() -> None:
    import ctypes
    import stat

    libc = ctypes.CDLL(None, use_errno=True)
    with open("/proc/self/status") as f:
        status = dict(line.split(":\t", 1) for line in f.read().splitlines())
    say(f"uid {os.getuid()} euid {os.geteuid()} CapEff {status['CapEff']}")
    say(f"NoNewPrivs {status['NoNewPrivs']} Seccomp {status.get('Seccomp')}")

    def attempt(what: str, done: int) -> None:
        say(f"ESCAPED: {what}" if done == 0 else f"held: {what} ({ctypes.get_errno()})")

    try:
        with open("/etc/shadow", "rb") as f:
            f.read(1)
        say("ESCAPED: read /etc/shadow")
    except OSError as e:
        say(f"held: read /etc/shadow ({e.errno})")
    here = os.getcwd().encode()
    attempt("remount its folder writable", libc.mount(None, here, None, 32 | 4096, None))
    os.makedirs("/tmp/cg", exist_ok=True)
    attempt("mount a cgroup", libc.mount(b"cgroup", b"/tmp/cg", b"cgroup", 0, b"pids"))
    try:
        os.mknod("/tmp/disk", stat.S_IFBLK | 0o600, os.makedev(8, 0))
        say("ESCAPED: made a disk's device node")
    except OSError as e:
        say(f"held: made a disk's device node ({e.errno})")
    attempt("make a user namespace", libc.unshare(0x10000000))
    attempt("make a mount namespace", libc.unshare(0x00020000))


def hostile() -> None:
    if mode == "escape":
        escape()
    elif mode == "forkbomb":
        made = 0
        for _ in range(2000):
            try:
                pid = os.fork()
            except OSError:
                break
            if pid == 0:
                time.sleep(60)
                os._exit(0)
            made += 1
        say(f"forked {made}")
    elif mode == "memory":
        hoard = b"x" * (10 << 30)
        say(f"holding {len(hoard)} bytes")
    elif mode == "connect":
        import socket

        try:
            socket.create_connection(("127.0.0.1", int(args[0])), timeout=5).close()
            say("CONNECTED")
        except OSError as e:
            say(f"no connection: {e}")
    elif mode == "read":
        for path in args:
            try:
                with open(path, "rb") as f:
                    f.read(1)
                say(f"READ {path}")
            except OSError as e:
                say(f"cannot read {path}: {e}")
    elif mode == "snoop":
        for path in args:
            try:
                say(f"LISTED {path}: {' '.join(sorted(os.listdir(path)))}")
            except NotADirectoryError:
                with open(path, "rb") as f:
                    say(f"READ {path}: {f.read(20)!r}")
            except OSError as e:
                say(f"cannot list {path}: {e}")
    elif mode == "write":
        for path in args:
            try:
                with open(path, "w") as f:
                    f.write("mine now")
                say(f"WROTE {path}")
            except OSError as e:
                say(f"cannot write {path}: {e}")
    elif mode == "orphan":
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                script = "import time; time.sleep(60)"
                os.execv(sys.executable, [sys.executable, "-c", script, args[0]])
            os._exit(0)
        os.wait()
    elif mode == "burn":
        threading.Thread(target=burn, daemon=True).start()
    elif mode == "descriptors":
        own = {(os.fstat(fd).st_dev, os.fstat(fd).st_ino) for fd in (0, 1, 2)}
        for name in sorted(os.listdir("/proc/self/fd"), key=int):
            try:
                held = os.fstat(int(name))
            except OSError:
                continue  # the listing's own descriptor, closed by now
            if int(name) > 2 and (held.st_dev, held.st_ino) not in own:
                say(f"HOLDS fd {name}: {os.readlink(f'/proc/self/fd/{name}')}")
        say("descriptors listed")
    elif mode == "stderr":
        chunk = b"e" * 65536
        for _ in range(160):
            sys.stderr.buffer.write(chunk)
        sys.stderr.flush()
    elif mode == "stdout":
        out.write(struct.pack(">I", 1 << 30) + b"x" * 65536)
        out.flush()


send({"type": "hello", "protocol": [1], "name": "hostile", "bot": True})
turns = 0
next_id = 1
for message in frames():
    if message["type"] == "bye":
        break
    if message["type"] != "turn" or "hand" not in message:
        continue
    turns += 1
    if turns == 1:
        hostile()
    elif mode == "burn":
        while time.process_time() < 30:
            pass
    discard = message["legal"][-1]
    take = "deck" if message.get("can_draw", True) else message["open"][0]
    send({"type": "play", "id": next_id, "discard": discard, "take": take})
    next_id += 1
