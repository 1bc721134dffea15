"""A throw-away PostgreSQL cluster for the tests: Debian's server binaries (``scripts/setup.sh --dev``
installs them), ``initdb`` + ``pg_ctl`` in a temporary folder, a free port, a unix socket in that
folder and no TCP listener. PostgreSQL refuses to run as root, so under root (CI containers) the
cluster belongs to the ``postgres`` system user (made by the Debian package) and is run through
``runuser``; the tests, as root, may still use its socket."""
from __future__ import annotations

import contextlib
import glob
import os
import pathlib
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid

SERVER_USER = "postgres"   # the Debian package's system user; the cluster's owner when the tests run as root


def server_binaries() -> pathlib.Path:
    """The newest installed PostgreSQL server's bin folder (Debian keeps them in /usr/lib/postgresql/N/bin)."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda path: int(path.split("/")[4]))
    if found:
        return pathlib.Path(found[-1]).parent
    initdb = shutil.which("initdb")
    if initdb:
        return pathlib.Path(initdb).parent
    raise RuntimeError("PostgreSQL's server binaries are not installed (initdb, pg_ctl): run scripts/setup.sh --dev")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Cluster:
    """``initdb`` once, then ``start`` / ``stop`` as often as a test likes (the data stays); ``remove`` at the end."""

    def __init__(self, fsync: bool = False) -> None:
        self.bin = server_binaries()
        self.folder = pathlib.Path(tempfile.mkdtemp(prefix="companion-pg-"))
        self.data = self.folder / "data"
        self.port = free_port()
        self.as_root = os.geteuid() == 0
        self.user = SERVER_USER if self.as_root else pwd.getpwuid(os.geteuid()).pw_name
        if self.as_root:
            pwd.getpwnam(SERVER_USER)   # KeyError: no such user (the postgresql package makes it)
            shutil.chown(self.folder, SERVER_USER)
        self.folder.chmod(0o755)
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-instructions")
        settings = {"listen_addresses": "''", "unix_socket_directories": f"'{self.folder}'", "port": str(self.port),
                    "max_connections": "200", "shared_buffers": "32MB",
                    # The tests kill servers of ours, never this cluster: durable commits to disk only cost them time.
                    # The benchmark's cluster keeps fsync on (benchmarks/bench_postgres.py).
                    "fsync": "on" if fsync else "off", "synchronous_commit": "on" if fsync else "off",
                    "full_page_writes": "on" if fsync else "off"}
        with open(self.data / "postgresql.conf", "a") as conf:
            conf.writelines(f"{key} = {value}\n" for key, value in settings.items())
        self.start()

    def _run(self, program: str, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        command = [str(self.bin / program), *args]
        if self.as_root:
            command = ["runuser", "-u", SERVER_USER, "--", *command]
        return subprocess.run(command, capture_output=True, text=True, check=check, cwd=self.folder)

    def start(self) -> None:
        result = self._run("pg_ctl", "-D", str(self.data), "-l", str(self.folder / "server.log"), "-w", "-t", "60", "start", check=False)
        if result.returncode != 0:
            log = (self.folder / "server.log").read_text() if (self.folder / "server.log").exists() else ""
            raise RuntimeError(f"the test cluster did not start: {result.stderr}\n{log[-2000:]}")

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop", check=False)

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@/{database}?host={self.folder}&port={self.port}"

    def new_database(self) -> str:
        """A fresh, empty database in this cluster; its URL."""
        import psycopg

        name = "t_" + uuid.uuid4().hex[:12]
        with psycopg.connect(self.url(), autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def remove(self) -> None:
        self.stop("immediate")
        shutil.rmtree(self.folder, ignore_errors=True)


@contextlib.contextmanager
def cluster(fsync: bool = False):
    made = Cluster(fsync)
    try:
        yield made
    finally:
        made.remove()
