"""Load, soak and crash tests of ``companion serve`` on 127.0.0.1 (bounded; every run stops by itself).

    python benchmarks/load_web.py watchers [--watchers 500] [--changes 100] [--rate 5]
    python benchmarks/load_web.py soak [--tables 20] [--phones 8] [--rate 2] [--minutes 30] [--warmup 60]
    python benchmarks/load_web.py crash [--rounds 10] [--writers 4] [--database URL]
    python benchmarks/load_web.py failover --database URL [--rounds 10] [--writers 4]

Each starts the real server (``python -m companion serve``) as a child process on a free loopback port
with a fresh data directory, drives it with raw HTTP/1.1 from one asyncio loop in this process (so the
load generator needs no thread per phone either), and prints one JSON line with the figures and
whether the targets were met; the exit status is 0 when they were. ``--cpus 0,1`` pins the server
to those cores (the default: the first two, the target's "2 cores").

* ``watchers``: N phones hold the live stream of one Kingdoms table while a referee makes changes one
  after another (a card placed, then undone, over and over); it reports the referee's request times
  (p50, p99, max) and checks that every watcher received every change, once, in order (and for a
  sample of watchers that the patches rebuild exactly the state the API gives).
* ``soak``: T tables, P phones watching each, each table changed R times a second for M minutes;
  samples the server's resident memory every 5 s and reports its growth after the warm-up, and checks
  every phone got every change of its table once and in order.
* ``crash``: W writers each change their own table as fast as the server answers; the server is killed
  with SIGKILL at a random moment, restarted, and every change that had been acknowledged (a 200
  answer) must be in the restarted server's journal, unchanged. Repeated ``--rounds`` times.
* ``failover``: two servers on one PostgreSQL database (``--database``), writers and phones on both; one
  is killed with SIGKILL during a burst, its phones reconnect to the other with Last-Event-ID: every
  acknowledged change must be in the survivor's journal and every phone must have every change once,
  in order (no snapshot instead). The killed server is started again; ``--rounds`` rounds.

Figures depend on the machine and on what else runs on it: the docs name the machine and the load.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import pathlib
import random
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from companion.session.patch import apply  # noqa: E402

HOST = "127.0.0.1"  # loopback only: nothing here ever talks to another machine
KINGDOMS = {"game": "kingdoms", "players": [{"name": "Ann", "suits": ["H", "D"]}, {"name": "Bo", "suits": ["S", "C"]}],
            "options": {"auto_score": False}}
PLACE = {"type": "place", "cell": [6, 6], "card": "10H"}
ID_LINE = re.compile(rb"(?m)^id: (\d+)\r?\nevent: (\w+)")


# -- the server ------------------------------------------------------------------------------------
def held_port() -> socket.socket:
    """A free port, held by a socket bound to it (SO_REUSEADDR, not listening) until the server started on it
    listens. Closed at once, the port would be anyone's until the child process binds it a second or more
    later: a test run's other processes (pytest -n) bind ports of their own meanwhile and the kernel may hand
    one of them this one; the server then fails to start, or, with --workers (SO_REUSEPORT, the same user),
    shares the port with another test's server. Held, Linux gives the port to no bind(0) and no connect(),
    yet lets the server, whose socket has SO_REUSEADDR too (web_ui/server.py), bind and listen on it (socket(7))."""
    probe = socket.socket()
    probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    probe.bind((HOST, 0))
    return probe


def process_children(pid: int) -> list[int]:
    """A process's children and theirs (Linux /proc)."""
    found = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as listing:
                found += [int(child) for child in listing.read().split()]
    except OSError:
        return found
    return found + [grandchild for child in list(found) for grandchild in process_children(child)]


def process_cpu_seconds(pid: int) -> float:
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    except OSError:   # it ended meanwhile
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def process_rss_mb(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


class Server:
    """``companion serve`` as a child process; ``database``: a postgresql:// URL (None: SQLite in ``data``);
    ``workers``: ``companion serve --workers N`` (its workers' CPU and memory counted with it)."""

    def __init__(self, data: pathlib.Path, cpus: list[int] | None, database: str | None = None, workers: int = 1) -> None:
        self.data, self.cpus, self.database, self.workers = data, cpus, database, workers
        self._port_held: socket.socket | None = held_port()   # until the server listens (start)
        self.port = self._port_held.getsockname()[1]
        self.process: subprocess.Popen | None = None

    def start(self, interrupt_ignored: bool = False) -> "Server":
        """``interrupt_ignored``: started with SIGINT ignored, as a shell script's ``&`` starts a command."""
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        env.pop("COMPANION_DATABASE", None)   # the store is the one named here
        store = ["--database", self.database] if self.database else []
        workers = ["--workers", str(self.workers)] if self.workers > 1 else []
        self.process = subprocess.Popen([sys.executable, "-m", "companion", "serve", "--host", HOST, "--port", str(self.port),
                                         "--data", str(self.data), *store, *workers], cwd=ROOT, env=env,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                        preexec_fn=(lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if interrupt_ignored else None)
        if self.cpus and hasattr(os, "sched_setaffinity"):
            os.sched_setaffinity(self.process.pid, self.cpus)
        deadline = time.monotonic() + 60
        # Started is answering, and with --workers every worker is: their sockets listen (and take connections
        # into their queues) before the workers that serve them have started, so each worker is asked once,
        # from one of as many consecutive loopback addresses (the port's program: the source address modulo the workers).
        waiting = [f"127.0.0.{10 + index}" for index in range(self.workers)] if self.workers > 1 else [None]
        try:
            while waiting and time.monotonic() < deadline:
                if self._answers(waiting[0]):
                    waiting.pop(0)
                else:
                    time.sleep(0.1)
        finally:
            if self._port_held is not None:   # it listens now (or never will): the port is the server's
                self._port_held.close()
                self._port_held = None
        if waiting:
            raise RuntimeError("the server did not start within 60 s")
        return self

    def _answers(self, source: str | None) -> bool:
        import http.client

        connection = http.client.HTTPConnection(HOST, self.port, timeout=5, source_address=(source, 0) if source else None)
        try:
            connection.request("GET", "/", headers={"Connection": "close"})
            connection.getresponse().read()
            return True
        except OSError:
            return False
        finally:
            connection.close()

    def pids(self) -> list[int]:
        """The server's process and its workers (``--workers``: it starts them as its children)."""
        return [self.process.pid, *process_children(self.process.pid)]

    def rss_mb(self) -> float:
        return sum(process_rss_mb(pid) for pid in self.pids())

    def cpu_seconds(self) -> float:
        """User + system CPU time the server has used (a figure the other jobs on the machine do not inflate much)."""
        return sum(process_cpu_seconds(pid) for pid in self.pids())

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()


# -- raw HTTP from asyncio ----------------------------------------------------------------------------
async def http(port: int, method: str, path: str, body: dict | None = None, headers: dict | None = None,
               timeout: float = 30.0) -> tuple[int, dict | None]:
    reader, writer = await asyncio.wait_for(asyncio.open_connection(HOST, port), timeout)
    try:
        payload = b"" if body is None else json.dumps(body).encode()
        lines = [f"{method} {path} HTTP/1.1", f"Host: {HOST}:{port}", "Connection: close",
                 f"Content-Length: {len(payload)}", "Content-Type: application/json"]
        lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + payload)
        await writer.drain()
        raw = await asyncio.wait_for(reader.read(), timeout)
    finally:
        writer.close()
    head, _, data = raw.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    if b"transfer-encoding: chunked" in head.lower():
        data = dechunk(data)
    return status, (json.loads(data) if data.strip() else None)


def dechunk(data: bytes) -> bytes:
    out, rest = bytearray(), data
    while rest:
        size_line, _, rest = rest.partition(b"\r\n")
        size = int(size_line.split(b";")[0] or b"0", 16)
        if size == 0:
            break
        out += rest[:size]
        rest = rest[size + 2:]
    return bytes(out)


class Watcher:
    """One phone's live stream: the change ids it got, in order, and (when ``keep``) the state it rebuilt."""

    def __init__(self, port: int, table_id: str, keep: bool = False, source: str | None = None) -> None:
        self.port, self.table_id, self.keep = port, table_id, keep
        self.source = source   # the phone's own address (a loopback one: 127.x.y.z), None: the default
        self.ids: list[int] = []
        self.state = None
        self.snapshots = 0
        self.errors: list[str] = []
        self.connected = asyncio.Event()
        self.task: asyncio.Task | None = None

    async def run(self) -> None:
        try:
            reader, writer = await asyncio.open_connection(HOST, self.port, limit=1 << 22,  # a snapshot is one long line
                                                           local_addr=(self.source, 0) if self.source else None)
            writer.write(f"GET /api/tables/{self.table_id}/stream HTTP/1.1\r\nHost: {HOST}:{self.port}\r\n\r\n".encode())
            await writer.drain()
            while (await reader.readline()) not in (b"\r\n", b""):
                pass
            self.connected.set()
            if not self.keep:  # most phones only count ids: cheap for the load generator sharing the cores
                tail = b""
                while chunk := await reader.read(65536):
                    text = tail + chunk
                    cut = text.rfind(b"\n")
                    tail = text[cut + 1:]
                    for match in ID_LINE.finditer(text[:cut + 1]):
                        self._take(match.group(2), int(match.group(1)), b"")
                return
            event = data = None
            async for raw in reader:
                line = raw.rstrip(b"\r\n")
                if line.startswith(b"id: "):
                    current = int(line[4:])
                elif line.startswith(b"event: "):
                    event = line[7:]
                elif line.startswith(b"data: "):
                    data = line[6:]
                elif line == b"" and event is not None:
                    self._take(event, current, data)
                    event = data = None
        except asyncio.CancelledError:
            pass
        except Exception as error:  # noqa: BLE001 - whatever stops a phone is reported, never silent
            self.errors.append(repr(error))

    def _take(self, event: bytes, seq: int, data: bytes) -> None:
        if event == b"snapshot":
            self.snapshots += 1
            if self.keep:
                self.state = json.loads(data)["state"]
            if self.ids and seq != self.ids[-1]:
                self.errors.append(f"a snapshot at {seq} after {self.ids[-1]}")
            if not self.ids:
                self.ids.append(seq)
            return
        self.ids.append(seq)
        if self.keep:
            self.state = apply(self.state, json.loads(data)["patch"])

    def in_order_from(self, first: int, last: int) -> bool:
        return self.ids == list(range(first, last + 1))

    def problem(self, first: int, last: int) -> str:
        """What went wrong, for the report: the first id out of place, how many arrived, any error."""
        gap = next((f"at {i}: {got} not {want}" for i, (got, want) in enumerate(zip(self.ids, range(first, last + 1))) if got != want), "")
        return f"{self.table_id}: {len(self.ids)} of {last - first + 1} ids {gap} snapshots={self.snapshots} errors={self.errors[:2]}"


async def new_table(port: int) -> dict:
    status, table = await http(port, "POST", "/api/tables", KINGDOMS)
    assert status == 201, (status, table)
    return table


def referee(table: dict) -> dict:
    return {"X-Referee-Token": table["referee_token"]}


async def change(port: int, table: dict, n: int) -> tuple[int, dict | None]:
    """The n-th change of a table: a card placed (even n), then undone (odd n), so it can go on forever."""
    if n % 2 == 0:
        return await http(port, "POST", f"/api/tables/{table['id']}/events", PLACE, referee(table))
    return await http(port, "POST", f"/api/tables/{table['id']}/undo", {}, referee(table))


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


# -- the three tests -----------------------------------------------------------------------------------
async def watchers_test(args, server: Server) -> dict:
    port = server.port
    table = await new_table(port)
    crowd = [Watcher(port, table["id"], keep=index < 5) for index in range(args.watchers)]
    for start in range(0, len(crowd), 50):  # 50 at a time, as phones arrive
        for watcher in crowd[start:start + 50]:
            watcher.task = asyncio.ensure_future(watcher.run())
        await asyncio.wait_for(asyncio.gather(*(w.connected.wait() for w in crowd[start:start + 50])), 60)
    await asyncio.sleep(1.0)
    rss_before = server.rss_mb()
    cpu_before = server.cpu_seconds()
    # The referee is its own process, as a phone is: its request times do not include the time this
    # process spends reading the 500 streams.
    referee_process = await asyncio.create_subprocess_exec(
        sys.executable, __file__, "referee", str(port), json.dumps(table), str(args.changes), str(args.rate),
        stdout=asyncio.subprocess.PIPE)
    output, _ = await referee_process.communicate()
    times = json.loads(output)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and any(len(w.ids) < args.changes + 1 for w in crowd):
        await asyncio.sleep(0.1)
    cpu_used = server.cpu_seconds() - cpu_before
    _, state = await http(port, "GET", f"/api/tables/{table['id']}")
    complete = sum(w.in_order_from(0, args.changes) for w in crowd)
    rebuilt = all(w.state == state for w in crowd if w.keep)
    for watcher in crowd:
        watcher.task.cancel()
    p99 = percentile(times, 0.99) * 1000
    return {"test": "watchers", "watchers": args.watchers, "changes": args.changes, "rate_per_s": args.rate,
            "referee_ms_p50": round(statistics.median(times) * 1000, 1), "referee_ms_p99": round(p99, 1),
            "referee_ms_max": round(max(times) * 1000, 1), "watchers_with_every_change_in_order": complete,
            "sampled_states_rebuilt_exactly": rebuilt, "server_rss_mb": round(server.rss_mb(), 1),
            "server_rss_mb_before_changes": round(rss_before, 1),
            "server_cpu_ms_per_change": round(cpu_used / args.changes * 1000, 1),
            "met": p99 <= 200 and complete == args.watchers and rebuilt}


async def soak_test(args, server: Server) -> dict:
    port = server.port
    tables = [await new_table(port) for _ in range(args.tables)]
    phones = {t["id"]: [Watcher(port, t["id"], keep=index == 0) for index in range(args.phones)] for t in tables}
    for watchers in phones.values():
        for watcher in watchers:
            watcher.task = asyncio.ensure_future(watcher.run())
    await asyncio.wait_for(asyncio.gather(*(w.connected.wait() for ws in phones.values() for w in ws)), 60)
    made = {t["id"]: 0 for t in tables}
    failures: list[str] = []
    stop_at = time.monotonic() + args.minutes * 60

    async def writer(table: dict) -> None:
        await asyncio.sleep(random.random() / args.rate)
        while time.monotonic() < stop_at:
            started = time.monotonic()
            status, body = await change(port, table, made[table["id"]])
            if status != 200:
                failures.append(f"{table['id']}: {status} {body}")
            else:
                made[table["id"]] += 1
            await asyncio.sleep(max(0.0, 1.0 / args.rate - (time.monotonic() - started)))

    samples: list[tuple[float, float]] = []

    async def sampler() -> None:
        began = time.monotonic()
        while time.monotonic() < stop_at:
            samples.append((time.monotonic() - began, server.rss_mb()))
            await asyncio.sleep(5)

    await asyncio.gather(sampler(), *(writer(t) for t in tables))
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and any(len(w.ids) < made[tid] + 1 for tid, ws in phones.items() for w in ws):
        await asyncio.sleep(0.2)
    complete = sum(w.in_order_from(0, made[tid]) for tid, ws in phones.items() for w in ws)
    rebuilt = True
    for table_id, watchers in phones.items():
        _, state = await http(port, "GET", f"/api/tables/{table_id}")
        rebuilt &= not watchers or watchers[0].state == state
        for watcher in watchers:
            watcher.task.cancel()
    after_warmup = [rss for at, rss in samples if at >= args.warmup] or [samples[-1][1]]
    growth = max(after_warmup) - after_warmup[0]
    phones_total = args.tables * args.phones
    return {"test": "soak", "tables": args.tables, "phones_per_table": args.phones, "rate_per_table": args.rate,
            "minutes": args.minutes, "warmup_s": args.warmup, "changes": sum(made.values()), "failed_requests": len(failures),
            "rss_mb_at_warmup": round(after_warmup[0], 1), "rss_mb_max_after_warmup": round(max(after_warmup), 1),
            "rss_growth_mb": round(growth, 1), "phones_with_every_change_in_order": complete, "phones": phones_total,
            "sampled_states_rebuilt_exactly": rebuilt,
            "problems": [w.problem(0, made[tid]) for tid, ws in phones.items() for w in ws if not w.in_order_from(0, made[tid])][:5],
            "rss_mb_every_30s": [round(rss, 1) for at, rss in samples[::6]],
            "met": growth <= 50 and complete == phones_total and not failures and rebuilt}


async def crash_round(args, data: pathlib.Path, cpus) -> tuple[int, int, list[str]]:
    server = Server(data, cpus, getattr(args, "database", None)).start()
    port = server.port
    tables = [await new_table(port) for _ in range(args.writers)]
    acknowledged: dict[str, list[dict]] = {t["id"]: [] for t in tables}
    stop = asyncio.Event()

    async def writer(table: dict) -> None:
        _, state = await http(port, "GET", f"/api/tables/{table['id']}")
        n = state["session"]["events"] % 2  # carry on the place/undo cycle where the table is
        while not stop.is_set():
            try:
                status, body = await change(port, table, n)
            except (TimeoutError, OSError, ValueError, IndexError, asyncio.IncompleteReadError):
                return  # the server died mid-request: not acknowledged
            if status == 200 and isinstance(body, dict) and "entry" in body:  # a whole answer: acknowledged
                acknowledged[table["id"]].append(body["entry"])
                n += 1
            elif status == 200:
                return  # the answer was cut off by the kill: the phone never learnt it was applied

    tasks = [asyncio.ensure_future(writer(t)) for t in tables]
    await asyncio.sleep(random.uniform(0.5, 2.0))
    server.kill()
    stop.set()
    await asyncio.gather(*tasks)
    restarted = Server(data, cpus, getattr(args, "database", None)).start()
    missing: list[str] = []
    try:
        for table_id, entries in acknowledged.items():
            _, journal = await http(restarted.port, "GET", f"/api/tables/{table_id}/journal")
            stored = {e["seq"]: e for e in journal["journal"]}
            for entry in entries:
                if stored.get(entry["seq"]) != entry:
                    missing.append(f"{table_id} change {entry['seq']}")
    finally:
        restarted.stop()
    return sum(len(v) for v in acknowledged.values()), len(missing), missing[:5]


async def crash_test(args) -> dict:
    acknowledged = lost = 0
    examples: list[str] = []
    with tempfile.TemporaryDirectory(prefix="companion-crash-") as folder:
        for round_number in range(args.rounds):
            data = pathlib.Path(folder) / f"round{round_number % 2}"  # restarted servers reuse a directory too
            got, missing, names = await crash_round(args, data, args.cpu_list)
            acknowledged += got
            lost += missing
            examples += names
    return {"test": "crash", "rounds": args.rounds, "writers": args.writers, "acknowledged_changes": acknowledged,
            "lost": lost, "examples": examples, "met": lost == 0 and acknowledged > 0}


class FollowingWatcher(Watcher):
    """A phone that, when its server dies, reconnects to another one with Last-Event-ID (``follow``)."""

    async def run(self) -> None:
        try:
            reader, writer = await asyncio.open_connection(HOST, self.port, limit=1 << 22)
            resume = f"Last-Event-ID: {self.ids[-1]}\r\n" if self.ids else ""
            writer.write(f"GET /api/tables/{self.table_id}/stream HTTP/1.1\r\nHost: {HOST}:{self.port}\r\n{resume}\r\n".encode())
            await writer.drain()
            while (await reader.readline()) not in (b"\r\n", b""):
                pass
            self.connected.set()
            tail = b""
            while chunk := await reader.read(65536):
                text = tail + chunk
                cut = text.rfind(b"\n")
                tail = text[cut + 1:]
                for match in ID_LINE.finditer(text[:cut + 1]):
                    seq, event = int(match.group(1)), match.group(2)
                    if event == b"snapshot" and self.ids:   # a resume must bring the missed changes themselves
                        self.errors.append(f"a snapshot at {seq} on resuming after {self.ids[-1]}")
                    if not self.ids or event == b"change":
                        self.ids.append(seq)
        except asyncio.CancelledError:
            pass
        except OSError:
            pass   # the server died: follow() moves the phone

    def follow(self, port: int) -> None:
        self.port, self.connected = port, asyncio.Event()
        self.task = asyncio.ensure_future(self.run())


async def failover_round(args, servers: list[Server], victim: int) -> dict:
    """Writers through both servers (each table changed through one of them), phones on both; the victim is
    killed with SIGKILL in a burst; its phones follow to the survivor, its writers stop. Then: every
    acknowledged change is in the survivor's journal, and every phone has every change once, in order."""
    ports = [server.port for server in servers]
    tables = [await new_table(ports[index % 2]) for index in range(args.writers)]
    acknowledged: dict[str, list[dict]] = {t["id"]: [] for t in tables}
    phones = [FollowingWatcher(ports[index % 2], t["id"]) for t in tables for index in range(2)]
    for phone in phones:
        phone.task = asyncio.ensure_future(phone.run())
    await asyncio.wait_for(asyncio.gather(*(phone.connected.wait() for phone in phones)), 30)
    stop = asyncio.Event()

    async def writer(index: int, table: dict, port: int) -> None:
        n = 0
        while not stop.is_set():
            try:
                status, body = await change(port, table, n)
            except (TimeoutError, OSError, ValueError, IndexError, asyncio.IncompleteReadError):
                return   # its server died mid-request: not acknowledged
            if status == 200 and isinstance(body, dict) and "entry" in body:
                acknowledged[table["id"]].append(body["entry"])
                n += 1
            elif status == 200:
                return

    tasks = [asyncio.ensure_future(writer(index, table, ports[index % 2])) for index, table in enumerate(tables)]
    await asyncio.sleep(random.uniform(0.3, 1.0))
    servers[victim].kill()
    survivor = ports[1 - victim]
    await asyncio.sleep(0.05)
    for phone in phones:
        if phone.port == ports[victim]:
            phone.task.cancel()
            phone.follow(survivor)
    stop.set()
    await asyncio.gather(*tasks)
    # the survivor goes on with every table (and the followed phones must hear these too)
    for table in tables:
        _, state = await http(survivor, "GET", f"/api/tables/{table['id']}")
        n = state["session"]["events"] % 2
        for _ in range(3):
            status, body = await change(survivor, table, n)
            assert status == 200, body
            acknowledged[table["id"]].append(body["entry"])
            n += 1
    lost, revisions = [], {}
    for table in tables:
        _, journal = await http(survivor, "GET", f"/api/tables/{table['id']}/journal")
        stored = {e["seq"]: e for e in journal["journal"]}
        revisions[table["id"]] = max(stored)
        lost += [f"{table['id']} change {e['seq']}" for e in acknowledged[table["id"]] if stored.get(e["seq"]) != e]
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and any(p.ids[-1:] != [revisions[p.table_id]] for p in phones):
        await asyncio.sleep(0.05)
    missed = [p.problem(p.ids[0], revisions[p.table_id]) for p in phones
              if not p.ids or not p.in_order_from(p.ids[0], revisions[p.table_id]) or p.errors]
    for phone in phones:
        phone.task.cancel()
    return {"acknowledged": sum(len(v) for v in acknowledged.values()), "lost": lost, "missed": missed,
            "followed": sum(p.port == survivor for p in phones) // 2}


async def failover_test(args) -> dict:
    """``--rounds`` rounds of :func:`failover_round` on two servers sharing ``--database``; the killed one is
    started again for the next round (the victim alternates)."""
    acknowledged, lost, missed = 0, [], []
    with tempfile.TemporaryDirectory(prefix="companion-failover-") as folder:
        servers = [Server(pathlib.Path(folder) / name, args.cpu_list, args.database).start() for name in ("one", "two")]
        try:
            for round_number in range(args.rounds):
                victim = round_number % 2
                result = await failover_round(args, servers, victim)
                acknowledged += result["acknowledged"]
                lost += result["lost"]
                missed += result["missed"]
                servers[victim] = Server(pathlib.Path(folder) / f"again{round_number}", args.cpu_list, args.database).start()
        finally:
            for server in servers:
                server.stop()
    return {"test": "failover", "rounds": args.rounds, "writers": args.writers, "acknowledged_changes": acknowledged,
            "lost": len(lost), "phones_that_missed_a_change": len(missed), "examples": (lost + missed)[:5],
            "met": not lost and not missed and acknowledged > 0}


def referee_main(port: int, table: dict, changes: int, rate: float) -> list[float]:
    """The referee's changes one after another, each timed from sending to the whole answer."""
    async def run() -> list[float]:
        times = []
        for n in range(changes):
            started = time.perf_counter()
            status, _ = await change(port, table, n)
            times.append(time.perf_counter() - started)
            assert status == 200, status
            await asyncio.sleep(max(0.0, 1.0 / rate - times[-1]))
        return times

    return asyncio.run(run())


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["referee"]:  # the watchers test's referee, run as its own process
        print(json.dumps(referee_main(int(argv[1]), json.loads(argv[2]), int(argv[3]), float(argv[4]))))
        return 0
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cpus", default="0,1", help="cores for the server (comma-separated; empty: any)")
    parser.add_argument("--database", default=None, metavar="URL", help="serve from this PostgreSQL database (default: SQLite)")
    sub = parser.add_subparsers(dest="test", required=True)
    one = sub.add_parser("watchers")
    one.add_argument("--watchers", type=int, default=500)
    one.add_argument("--changes", type=int, default=100)
    one.add_argument("--rate", type=float, default=5.0, help="referee changes per second")
    soak = sub.add_parser("soak")
    soak.add_argument("--tables", type=int, default=20)
    soak.add_argument("--phones", type=int, default=8)
    soak.add_argument("--rate", type=float, default=2.0, help="changes per second per table")
    soak.add_argument("--minutes", type=float, default=30.0)
    soak.add_argument("--warmup", type=float, default=60.0, help="seconds before memory growth is counted")
    crash = sub.add_parser("crash")
    crash.add_argument("--rounds", type=int, default=10)
    crash.add_argument("--writers", type=int, default=4)
    failover = sub.add_parser("failover", help="two servers on --database: kill -9 one during bursts, phones follow")
    failover.add_argument("--rounds", type=int, default=10)
    failover.add_argument("--writers", type=int, default=4)
    args = parser.parse_args(argv)
    available = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else set()
    args.cpu_list = [int(c) for c in args.cpus.split(",") if c.strip() and int(c) in available] or None
    if args.test == "crash":
        result = asyncio.run(crash_test(args))
    elif args.test == "failover":
        if not args.database:
            parser.error("failover needs --database postgresql://… (two servers share it)")
        result = asyncio.run(failover_test(args))
    else:
        with tempfile.TemporaryDirectory(prefix="companion-load-") as folder:
            server = Server(pathlib.Path(folder), args.cpu_list, args.database).start()
            try:
                runner = watchers_test if args.test == "watchers" else soak_test
                result = asyncio.run(runner(args, server))
            finally:
                server.stop()
    result["server_cpus"] = args.cpu_list
    print(json.dumps(result))
    return 0 if result["met"] else 1


if __name__ == "__main__":
    sys.exit(main())
