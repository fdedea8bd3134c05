"""A throwaway PostgreSQL server for the tests and benchmarks: initdb, pg_ctl start, and stop at the end.

PostgreSQL refuses to run as root, so when the tests run as root the server is made and run by the
`postgres` system user, in a temporary folder that user owns. The server listens on a Unix socket in that
folder and on a free port of 127.0.0.1, with durability switched off (fsync, synchronous_commit): it is
thrown away at the end, and the tests are about the store's logic, not about the disk.

If PostgreSQL is missing, `start_cluster` raises PostgresMissing with a sentence saying how to install it:
the PostgreSQL tests must fail then, never be skipped.
"""

from __future__ import annotations

import atexit
import glob
import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

INSTALL_HINT = (
    "PostgreSQL (initdb, pg_ctl) was not found: install PostgreSQL 15 or newer (Debian: apt-get install "
    "postgresql) so that initdb and pg_ctl are on PATH or in /usr/lib/postgresql/*/bin."
)


class PostgresMissing(RuntimeError):
    pass


def find_binary(name: str) -> str | None:
    """A PostgreSQL program on PATH, or in Debian's versioned folder (newest first)."""
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(
        glob.glob(f"/usr/lib/postgresql/*/bin/{name}"),
        key=lambda p: int(Path(p).parts[-3]) if Path(p).parts[-3].isdigit() else 0,
        reverse=True,
    )
    return candidates[0] if candidates else None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class PgCluster:
    root: Path
    port: int
    pg_ctl: str
    as_user: list[str]
    _names: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    @property
    def data(self) -> Path:
        return self.root / "data"

    @property
    def sockets(self) -> Path:
        return self.root / "sock"

    def url(self, database: str = "postgres", schema: str | None = None) -> str:
        """A URL for asyncpg (and pg_dump): the Unix socket, as the `postgres` superuser, no password."""
        query = f"?host={self.sockets}"
        if schema is not None:
            query += f"&search_path={schema}"
        return f"postgresql://postgres@localhost:{self.port}/{database}{query}"

    def tcp_url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def new_name(self, prefix: str) -> str:
        """A fresh name for a schema or a database, unique in this cluster's life."""
        return f"{prefix}_{os.getpid()}_{next(self._names)}"

    def psql(self, sql: str, database: str = "postgres") -> str:
        psql = find_binary("psql")
        assert psql is not None, INSTALL_HINT
        done = subprocess.run(
            [psql, "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-d", self.url(database), "-c", sql],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(f"psql failed: {done.stderr.strip()}")
        return done.stdout

    def create_database(self, prefix: str = "db") -> str:
        name = self.new_name(prefix)
        self.psql(f"CREATE DATABASE {name}")
        return name

    def restart(self) -> None:
        """Stop the server as an administrator's restart does (every connection cut), and start it again on
        the same port and sockets. Blocking: run it in a thread beside an event loop."""
        subprocess.run(
            [*self.as_user, self.pg_ctl, "-D", str(self.data), "-m", "fast", "-w", "stop"],
            capture_output=True,
            check=True,
        )
        _start(self)

    def stop(self) -> None:
        subprocess.run(
            [*self.as_user, self.pg_ctl, "-D", str(self.data), "-m", "immediate", "-w", "stop"],
            capture_output=True,
            check=False,
        )
        shutil.rmtree(self.root, ignore_errors=True)


def start_cluster() -> PgCluster:
    """initdb and start a new server; raises PostgresMissing (with INSTALL_HINT) if PostgreSQL is absent."""
    initdb, pg_ctl = find_binary("initdb"), find_binary("pg_ctl")
    if initdb is None or pg_ctl is None:
        raise PostgresMissing(INSTALL_HINT)
    as_root = os.geteuid() == 0
    # As root, in /tmp itself: the postgres user must be able to reach the folder, and TMPDIR may be private.
    root = Path(tempfile.mkdtemp(prefix="alexandros-pg-", dir="/tmp" if as_root else None))
    as_user: list[str] = []
    if as_root:
        # initdb refuses root: the server is the postgres system user's, in a folder that user owns.
        try:
            owner = pwd.getpwnam("postgres")
        except KeyError as exc:
            shutil.rmtree(root, ignore_errors=True)
            raise PostgresMissing(
                "PostgreSQL refuses to run as root and there is no `postgres` system user to run it: "
                "install PostgreSQL from your distribution (Debian: apt-get install postgresql)."
            ) from exc
        os.chown(root, owner.pw_uid, owner.pw_gid)
        as_user = ["runuser", "-u", "postgres", "--"]
    cluster = PgCluster(root, _free_port(), pg_ctl, as_user)
    run = [*as_user]
    try:
        subprocess.run([*run, "mkdir", "-m", "700", str(cluster.sockets)], check=True, capture_output=True)
        subprocess.run(
            [*run, initdb, "-D", str(cluster.data), "-U", "postgres", "--auth=trust", "-E", "UTF8",
             "--locale=C", "--no-sync"],
            check=True, capture_output=True,
        )  # fmt: skip
        _start(cluster)
    except subprocess.CalledProcessError as exc:
        log = root / "server.log"
        detail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
        shutil.rmtree(root, ignore_errors=True)
        raise RuntimeError(f"could not start a throwaway PostgreSQL server: {exc.stderr!r} {detail}") from exc
    # Stopped by the fixture (or the benchmark) at the end; this catches an interrupted run too.
    atexit.register(cluster.stop)
    return cluster


def _start(cluster: PgCluster) -> None:
    """pg_ctl start, with its log in a file (pg_ctl's own output would hold a pipe open for ever)."""
    options = (
        f"-k {cluster.sockets} -c listen_addresses=127.0.0.1 -p {cluster.port} -c fsync=off"
        " -c synchronous_commit=off -c full_page_writes=off -c max_connections=300"
        " -c shared_buffers=64MB"
    )
    subprocess.run(
        [*cluster.as_user, cluster.pg_ctl, "-D", str(cluster.data), "-l", str(cluster.root / "server.log"),
         "-o", options, "-w", "-t", "60", "start"],
        check=True, capture_output=True,
    )  # fmt: skip


_running: PgCluster | None = None


def running() -> PgCluster:
    """The session's server, started by the `pg_cluster` fixture (tests/storage/conftest.py)."""
    if _running is None:
        raise RuntimeError("no PostgreSQL server: request the session fixture `pg_cluster` first")
    return _running


def set_running(cluster: PgCluster | None) -> None:
    global _running
    _running = cluster
