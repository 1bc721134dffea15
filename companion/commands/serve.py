"""``companion serve``: the phone referee over HTTP or HTTPS (a self-signed certificate), served by uvicorn."""
from __future__ import annotations

import argparse
import ipaddress
import json
import os
import pathlib
import secrets
import shutil
import socket
import subprocess
import sys
import threading
from urllib.parse import urlsplit, urlunsplit

from companion.commands import CommandError, error_text
from companion.i18n import _, ngettext, normalize

# Threads for ordinary requests (= web_ui.server.WSGI_THREADS; kept here so --help stays cheap): the
# phones' live streams are coroutines and need none.
SERVER_THREADS = 16
# `--workers N`: each worker is this command run again with this variable set to "index/count" (it
# serves on the shared port and leaves the starting to the first process).
WORKER_VARIABLE = "COMPANION_SERVE_WORKER"
# ... and this one to the file descriptor of its listening socket, made by the first process: the N sockets
# of the port's group are all listening, in the workers' order, before any worker starts, so the kernel's
# choice by client address is the same from the first connection on and across a worker's restart (a worker
# binding its own joined the group when it got there: a table computer's first posts reached the worker
# already listening, which took the feed's lease, and its next ones the other, which answered 503).
SOCKET_VARIABLE = "COMPANION_SERVE_SOCKET_FD"
MAX_WORKERS = 32
# A worker that ends within this long of its start (a wrong option, the database away) ends them all with
# its status; one that ends later (killed) is started again after WORKER_RESTART_SECONDS.
WORKER_START_SECONDS = 20.0
WORKER_RESTART_SECONDS = 1.0
# Ctrl-C: each worker's server stops within its 2 s graceful shutdown (web_ui.server.make_server) and its
# lifespan; one still running after this long is killed (every change is committed before it is answered).
WORKER_STOP_SECONDS = 10.0
# The exit status when the database named by --database cannot be reached at start (sysexits' EX_UNAVAILABLE),
# so a service manager tells it from a usage error (2) and tries again later.
EXIT_DATABASE_UNAVAILABLE = 69


def register(subparsers) -> None:
    parser = subparsers.add_parser("serve", help=_("serve the phone referee web app"),
                                   description=_("Serve the phone referee: players open the page on their phones. "
                                                 "Binds to this machine only unless --host 0.0.0.0 (see docs/web.md)."))
    parser.add_argument("--host", default="127.0.0.1", help=_("address to listen on (default 127.0.0.1; 0.0.0.0 for the local network)"))
    parser.add_argument("--port", type=int, default=8000, help=_("port (default 8000)"))
    parser.add_argument("--data", default="companion-data", help=_("data directory: the tables' SQLite journal and the certificate"))
    parser.add_argument("--database", default=os.environ.get("COMPANION_DATABASE") or None, metavar="URL",
                        help=_("keep the tables in this PostgreSQL database (postgresql://user@host/name), shared with "
                               "every server that names it (default: $COMPANION_DATABASE, else the SQLite journal in --data)"))
    parser.add_argument("--camera", default=None, metavar="SRC", help=_("camera for the table pipeline: a device index, video file or URL"))
    parser.add_argument("--https", action="store_true", help=_("serve HTTPS with a self-signed certificate (phones need it to use their camera)"))
    parser.add_argument("--language", metavar="LANG",
                        help=_("the pages' language for a phone whose browser asks for neither: en (default) or zh-Hans; "
                               "each phone may switch (and this command's own messages follow it too)"))
    parser.add_argument("--demo", choices=("kingdoms", "dungeon", "chosen"), default=None, metavar="GAME",
                        help=_("play the shipped demo recording of GAME (kingdoms, dungeon or chosen) through the table "
                               "pipeline into a new table: no camera needed"))
    parser.add_argument("--demo-detector", choices=("auto", "neural", "truth"), default="auto",
                        help=_("demo only: the neural detector (auto: when its weights are installed) or the "
                               "recording's own card list"))
    parser.add_argument("--deck", metavar="NAME",
                        help=_("the default deck: the cameras of tables that name no deck read with this one, learned "
                               "into --data (companion deck learn, or the phone's Teach your deck page). A table names "
                               "its own deck when it is made or later on its page (the referee's Deck panel)"))
    parser.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                        help=_("another host name phones use to reach this server (e.g. mypc.local); "
                               "localhost, 127.0.0.1 and the LAN address are always allowed"))
    parser.add_argument("--list-tables", action="store_true",
                        help=_("show every table's join code on the start page and in GET /api/tables "
                               "(off: anyone on the network could watch any table)"))
    parser.add_argument("--batching", choices=("off", "classifier", "detector", "both", "both:2"), default="off",
                        help=_("tables that send frames: batch their images across tables in the shared detector's "
                               "networks (off by default: on two CPU cores it measured no faster, docs/table.md)"))
    parser.add_argument("--no-phone-reader", dest="phone_reader", action="store_false",
                        help=_("phones never read the cards themselves: every phone camera sends its frames and this "
                               "server reads them (default: a phone that can run the card reader in its browser reads "
                               "its own, docs/web.md)"))
    parser.add_argument("--workers", type=int, default=1, metavar="N",
                        help=_("serve with N processes on one port, for a venue's many tables (needs --database: they "
                               "share the tables through it; Linux). Each table computer and phone stays with the one "
                               "its address picks. Default 1"))
    parser.add_argument("--threads", type=int, default=SERVER_THREADS, help=argparse.SUPPRESS)
    parser.set_defaults(handler=serve)


def lan_address() -> str:
    """This machine's address on the local network (the route to a private address; nothing is sent)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 1))
            return probe.getsockname()[0]
        except OSError:
            return "127.0.0.1"


def public_url(host: str, port: int, https: bool) -> str:
    shown = lan_address() if host in ("0.0.0.0", "::", "") else host
    if ":" in shown:
        shown = f"[{shown}]"
    return f"{'https' if https else 'http'}://{shown}:{port}/"


def ensure_certificate(directory: pathlib.Path, address: str) -> tuple[pathlib.Path, pathlib.Path]:
    """A self-signed certificate for this machine, made once with the openssl command and kept."""
    directory.mkdir(parents=True, exist_ok=True)
    cert, key = directory / "cert.pem", directory / "key.pem"
    if cert.exists() and key.exists():
        return cert, key
    openssl = shutil.which("openssl")
    if openssl is None:
        raise CommandError(_("--https needs the openssl command to make a certificate (apt install openssl)"))
    names = ["DNS:localhost", "IP:127.0.0.1"]
    try:
        ipaddress.ip_address(address)
        names.append(f"IP:{address}")
    except ValueError:
        names.append(f"DNS:{address}")
    result = subprocess.run(
        [openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-sha256", "-days", "825",
         "-keyout", str(key), "-out", str(cert), "-subj", "/CN=Card Companion", "-addext",
         "subjectAltName=" + ",".join(dict.fromkeys(names))],
        capture_output=True, text=True)
    if result.returncode != 0:
        raise CommandError(_("openssl could not make a certificate: %(error)s", error=result.stderr.strip()[:300]))
    key.chmod(0o600)
    return cert, key


def demo_config(game: str, detector_choice: str, clock=None) -> dict:
    """App settings that make the shipped recording of ``game`` the server's camera, played live: at
    its own frame rate, the frames the pipeline cannot keep up with dropped (``clock``: a simulated
    one for tests, else the wall clock)."""
    from companion.table.demos import demo_detector, demo_dir
    from companion.table.live import open_live

    folder = demo_dir(game)
    detector, kind = demo_detector(game, detector_choice)
    if kind == "neural":
        print(_("Demo detector: the shipped neural detector"))
    elif detector_choice == "truth":
        print(_("Demo detector: the recording's own card list"))
    else:
        print(_("Demo detector: the recording's own card list (no neural weights installed)"))

    def open_camera(spec):
        live = open_live(spec, clock)
        if kind == "truth":
            detector.following(live)   # the card list of the frame the live source delivered
        return live

    return {"CAMERA_SOURCE": str(folder), "CAMERA_DETECTOR_LOADER": lambda: detector, "CAMERA_OPENER": open_camera}


def start_demo_table(app, game: str):
    """The demo's table, set up like the recording's and watched by the demo camera. A rerun reuses the
    table it made before (its meta says ``demo``) and rewinds it to the setup with undos, journaled like
    any other (nothing is deleted), instead of adding a new table to the list every time."""
    from companion.session import TableNotFound
    from companion.session.registry import split_presentation
    from companion.table.demos import demo_truth

    truth = demo_truth(game)
    registry = app.extensions["registry"]
    setup = split_presentation(json.loads(json.dumps(truth["setup"])))[0]
    setup_events = list(truth.get("setup_events", []))
    record = next((r for r in registry.store.tables() if r.meta.get("demo") == game and r.setup == setup
                   and r.meta.get("demo_pin") and r.id not in registry.deleted), None)
    table = None
    if record is not None:
        try:
            table = registry.get(record.id)
        except TableNotFound:   # deleted by its referee, or its engine refuses it now: a new demo table
            table = None
    if table is None:
        # The PIN is kept in the clear for the demo only, so a rerun can print it again: a demo table holds
        # nothing anyone entered.
        pin = "".join(secrets.choice("0123456789") for _digit in range(6))
        table, pin = registry.create(game, truth["setup"], meta={"demo": game, "demo_pin": pin}, pin=pin)
    else:
        pin = table.record.meta["demo_pin"]
        while table.active_events() and table.active_events() != setup_events[:len(table.active_events())]:
            table.undo()
    for event in setup_events[len(table.active_events()):]:
        table.submit(event, source="referee")
    app.extensions["camera"].attach_server_camera(table)
    return table, pin


def check_default_deck(name: str, data: pathlib.Path) -> str:
    """``--deck NAME`` checked now (a wrong name fails before serving): the tables that name no deck read with it."""
    from companion.vision.decks.store import load_deck

    try:
        load_deck(name, data)
    except ValueError as error:
        raise CommandError(_("--deck: %(error)s", error=error_text(error))) from None
    return name


def serve(args) -> int:
    from web_ui import create_app
    from web_ui.evening import ensure_host_token, host_link

    if not 0 < args.port < 65536:
        raise CommandError(_("--port must be 1-65535, got %(port)s", port=args.port))
    workers = getattr(args, "workers", 1)
    worker = os.environ.get(WORKER_VARIABLE)
    if workers != 1 and worker is None:
        return serve_workers(args)
    data = pathlib.Path(args.data)
    url = public_url(args.host, args.port, args.https)
    config = {"DATA_DIR": str(data), "PUBLIC_URL": url, "CAMERA_SOURCE": args.camera, "LIST_TABLES": args.list_tables,
              "HOST_TOKEN": ensure_host_token(data),
              "TRUSTED_HOSTS": trusted_hosts(args.host, url, args.allow_host),
              "CAMERA_BATCHING": None if getattr(args, "batching", "off") == "off" else args.batching,
              "PHONE_READER": getattr(args, "phone_reader", True)}
    language = getattr(args, "language", None)
    if language:
        # an unknown code is no error: the pages fall back to English (and say so here)
        config["LANGUAGE"] = normalize(language) or "en"
        if normalize(language) is None:
            print(_("--language %(code)s is not a language the companion has (en, zh-Hans): the pages default to English",
                    code=language))
    if args.demo:
        if args.camera:
            raise CommandError(_("--demo plays a recording as the camera: leave out --camera"))
        config.update(demo_config(args.demo, args.demo_detector))
    if args.deck:
        config["DEFAULT_DECK"] = check_default_deck(args.deck, data)
    database = getattr(args, "database", None)
    if database:
        config["DATABASE"] = database
    from companion.session import StoreUnavailable

    try:
        app = create_app(config)
    except StoreUnavailable as error:
        print(_("companion: error: %(error)s (%(database)s). Start PostgreSQL or correct --database, then start the server again",
                database=redacted(database or ""), error=error_text(error)), file=sys.stderr)
        return EXIT_DATABASE_UNAVAILABLE
    registry = app.extensions["registry"]
    count = registry.store.count_tables()   # no journal replayed: each table is loaded when first asked for
    if database:
        print(ngettext("Card Companion: %(n)d table in the database %(database)s", "Card Companion: %(n)d tables in the database %(database)s",
                       count, database=redacted(database)))
    else:
        print(ngettext("Card Companion: %(n)d table in %(data)s", "Card Companion: %(n)d tables in %(data)s", count,
                       data=data.resolve()))
    print(_("The host's page (every table, the players' records, export): %(url)s",
            url=host_link(url, app.config["HOST_TOKEN"])))
    # Tables stored before summaries existed get theirs in the background (each replayed once), not before
    # the server answers; the list makes any still missing when it is asked for.
    threading.Thread(target=registry.summarize_missing, name="summaries", daemon=True).start()
    if args.demo:
        table, pin = start_demo_table(app, args.demo)
        print(_("Demo: the %(game)s recording plays into table %(table)s (referee PIN %(pin)s): %(url)s",
                game=args.demo, table=table.id, pin=pin, url=f"{url}t/{table.id}"))
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(_("Open %(url)s on the phones", url=url))
    else:
        print(_("Open %(url)s on the phones (this machine only: --host 0.0.0.0 opens it to the local network)", url=url))
    from web_ui.server import serve_forever

    cert = key = None
    if args.https:
        cert, key = ensure_certificate(data / "tls", url.split("//", 1)[1].rsplit(":", 1)[0].strip("[]"))
        print(_("HTTPS with the self-signed certificate %(cert)s: each phone accepts it once", cert=cert))
    inherited = os.environ.get(SOCKET_VARIABLE)
    serve_forever(app, args.host, args.port, args.threads, str(cert) if cert else None, str(key) if key else None,
                  workers=workers, socket_fd=int(inherited) if inherited else None)
    return 0


def check_workers(args) -> None:
    """``--workers N`` with what it needs: a shared database, Linux's SO_REUSEPORT, an IPv4 address, no camera."""
    if not 2 <= args.workers <= MAX_WORKERS:
        raise CommandError(_("--workers must be 1-%(most)s, got %(workers)s", most=MAX_WORKERS, workers=args.workers))
    if not getattr(args, "database", None):
        raise CommandError(_("--workers needs --database (or $COMPANION_DATABASE): the workers share the tables through it"))
    if args.camera or args.demo:
        raise CommandError(_("--workers serves tables whose readers post detections or frames: leave out --camera and --demo "
                             "(a camera belongs to one process)"))
    if not hasattr(socket, "SO_REUSEPORT") or not sys.platform.startswith("linux"):
        raise CommandError(_("--workers needs Linux (SO_REUSEPORT): start one server per port instead (docs/web.md)"))
    if ":" in args.host:
        raise CommandError(_("--workers listens on an IPv4 address (--host 0.0.0.0 or one of this machine's)"))


def serve_workers(args) -> int:
    """``--workers N``: this command started N times over, each a whole server on the shared port (the kernel
    gives each client's connections to one of them by its address), started again when one dies; Ctrl-C
    stops them all. Nothing is shared in memory: every table lives in the database they name."""
    import signal
    import time

    check_workers(args)
    if args.https:   # made once here, before the workers would each make it at the same moment
        url = public_url(args.host, args.port, True)
        ensure_certificate(pathlib.Path(args.data) / "tls", url.split("//", 1)[1].rsplit(":", 1)[0].strip("[]"))
    command = [sys.executable, "-m", "companion", *sys.argv[1:]]
    from web_ui.server import listening_socket

    try:
        sockets = [listening_socket(args.host, args.port, args.workers) for _index in range(args.workers)]
    except OSError as error:
        raise CommandError(_("cannot listen on %(host)s:%(port)s: %(error)s", host=args.host, port=args.port,
                             error=error.strerror or error)) from None

    def start(index: int) -> subprocess.Popen:
        descriptor = sockets[index].fileno()
        env = {**os.environ, WORKER_VARIABLE: f"{index}/{args.workers}", SOCKET_VARIABLE: str(descriptor)}
        # the first worker says what every one would (the tables, the address); the others say only their errors
        return subprocess.Popen(command, env=env, stdout=None if index == 0 else subprocess.DEVNULL, pass_fds=(descriptor,))

    stopped_by = None   # the signal that asked to stop
    failed = False      # a worker ended at its start

    def stop(number, _frame) -> None:
        nonlocal stopped_by
        stopped_by = stopped_by or number

    # SIGINT is caught here, not left to Python's KeyboardInterrupt: a command started with SIGINT ignored (by
    # a shell script's `&`, as a background test run was) gets no KeyboardInterrupt, so it and its workers
    # served on until killed. Caught before the workers start: exec resets a caught signal to its default but
    # keeps an ignored one ignored. A flag, not an exception, also lets a worker being started again be
    # recorded (and then stopped) rather than left running unknown.
    previous = {number: signal.signal(number, stop) for number in (signal.SIGINT, signal.SIGTERM)}
    status = 0
    processes = []
    try:
        print(_("Card Companion: %(workers)s workers on port %(port)s", workers=args.workers, port=args.port), flush=True)
        began = time.monotonic()
        for index in range(args.workers):
            processes.append(start(index))
        while stopped_by is None and not failed:
            time.sleep(0.2)
            for index, process in enumerate(processes):
                code = process.poll()
                if code is None:
                    continue
                if time.monotonic() - began < WORKER_START_SECONDS:
                    status, failed = code or 1, True
                    break
                print(_("companion: worker %(index)s ended (status %(code)s): starting it again", index=index, code=code),
                      file=sys.stderr, flush=True)
                time.sleep(WORKER_RESTART_SECONDS)
                if stopped_by is not None:
                    break
                processes[index] = start(index)
    finally:
        if stopped_by == signal.SIGINT:
            # a Ctrl-C at the terminal reached the workers too: a second signal would cut their shutdown short
            deadline = time.monotonic() + 2.0
            while any(p.poll() is None for p in processes) and time.monotonic() < deadline:
                time.sleep(0.1)
        for process in processes:
            if process.poll() is None:
                process.send_signal(signal.SIGINT)
        # one deadline for all of them: waited one after another, two stuck workers held Ctrl-C for 30 s and more
        deadline = time.monotonic() + WORKER_STOP_SECONDS
        for process in processes:
            try:
                process.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        for number, handler in previous.items():
            signal.signal(number, handler)
        for sock in sockets:
            sock.close()
    return status


def redacted(url: str) -> str:
    """A database URL as it may be printed: without its password."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "(unreadable URL)"
    if parts.password is None:
        return url
    netloc = f"{parts.username}:***@{parts.hostname or ''}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


def trusted_hosts(host: str, url: str, extra: list[str]) -> list[str]:
    """Host names the server answers to: loopback, the address it listens on, the join links' host, and
    the names given with --allow-host. A page on any other name (DNS rebinding) is refused."""
    names = ["localhost", "127.0.0.1", "::1", url.split("//", 1)[1].rsplit(":", 1)[0].strip("[]")]
    if host not in ("0.0.0.0", "::", ""):
        names.append(host)
    return list(dict.fromkeys(name.strip().lower() for name in names + list(extra) if name.strip()))
