"""``companion serve``: the phone referee over HTTP (waitress) or HTTPS (a self-signed certificate)."""
from __future__ import annotations

import argparse
import ipaddress
import pathlib
import shutil
import socket
import subprocess

from companion.cli import CommandError

# Each open phone holds one server-sent-events stream, i.e. one server thread, while it watches.
SERVER_THREADS = 64  # = web_ui.server.DEFAULT_THREADS; kept here so --help stays cheap


def register(subparsers) -> None:
    parser = subparsers.add_parser("serve", help="serve the phone referee web app",
                                   description="Serve the phone referee: players open the page on their phones. "
                                               "Binds to this machine only unless --host 0.0.0.0 (see docs/web.md).")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1; 0.0.0.0 for the local network)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument("--data", default="companion-data", help="data directory: the tables' SQLite journal and the certificate")
    parser.add_argument("--camera", default=None, metavar="SRC", help="camera for the table pipeline: a device index, video file or URL")
    parser.add_argument("--https", action="store_true", help="serve HTTPS with a self-signed certificate (phones need it to use their camera)")
    parser.add_argument("--demo", choices=("kingdoms", "dungeon", "chosen"), default=None, metavar="GAME",
                        help="play the shipped demo recording of GAME (kingdoms, dungeon or chosen) through the table "
                             "pipeline into a new table: no camera needed")
    parser.add_argument("--demo-detector", choices=("auto", "neural", "truth"), default="auto",
                        help="demo only: the neural detector (auto: when its weights are installed) or the "
                             "recording's own card list")
    parser.add_argument("--deck", metavar="NAME",
                        help="the cameras read with this deck, learned by `companion deck learn` into --data")
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
        raise CommandError("--https needs the openssl command to make a certificate (apt install openssl)")
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
        raise CommandError(f"openssl could not make a certificate: {result.stderr.strip()[:300]}")
    key.chmod(0o600)
    return cert, key


def demo_config(game: str, detector_choice: str) -> dict:
    """App settings that make the shipped recording of ``game`` the server's camera."""
    from companion.table.demos import demo_detector, demo_dir

    folder = demo_dir(game)
    detector, kind = demo_detector(game, detector_choice)
    print("Demo detector: " + ("the shipped neural detector" if kind == "neural" else "the recording's own card list"
                               + ("" if detector_choice == "truth" else " (no neural weights installed)")))
    return {"CAMERA_SOURCE": str(folder), "CAMERA_DETECTOR_LOADER": lambda: detector}


def start_demo_table(app, game: str):
    """A new table set up like the recording's, watched by the demo camera."""
    from companion.table.demos import demo_truth

    truth = demo_truth(game)
    table, pin = app.extensions["registry"].create(game, truth["setup"])
    for event in truth.get("setup_events", []):
        table.submit(event, source="referee")
    app.extensions["camera"].attach_server_camera(table)
    return table, pin


def deck_detector_loader(name: str, data: pathlib.Path, loader=None):
    """A detector loader reading with the learned deck ``name`` (checked now: a wrong name fails before serving)."""
    from companion.session.camera import load_detector
    from companion.vision.deckprofile import load_deck

    deck = load_deck(name, data)
    base = loader or load_detector

    def load():
        detector = base()
        return detector.with_deck(deck, closer=False) if hasattr(detector, "with_deck") else detector

    return load


def serve(args) -> int:
    from web_ui import create_app

    if not 0 < args.port < 65536:
        raise CommandError(f"--port must be 1-65535, got {args.port}")
    data = pathlib.Path(args.data)
    url = public_url(args.host, args.port, args.https)
    config = {"DATA_DIR": str(data), "PUBLIC_URL": url, "CAMERA_SOURCE": args.camera}
    if args.demo:
        if args.camera:
            raise CommandError("--demo plays a recording as the camera: leave out --camera")
        config.update(demo_config(args.demo, args.demo_detector))
    if args.deck:
        config["CAMERA_DETECTOR_LOADER"] = deck_detector_loader(args.deck, data, config.get("CAMERA_DETECTOR_LOADER"))
    app = create_app(config)
    print(f"Card Companion: {len(app.extensions['registry'].list())} table(s) in {data.resolve()}")
    if args.demo:
        table, pin = start_demo_table(app, args.demo)
        print(f"Demo: the {args.demo} recording plays into table {table.id} (referee PIN {pin}): {url}t/{table.id}")
    print(f"Open {url} on the phones" + ("" if args.host not in ("127.0.0.1", "localhost", "::1")
                                         else " (this machine only: --host 0.0.0.0 opens it to the local network)"))
    if args.https:
        from werkzeug.serving import run_simple

        cert, key = ensure_certificate(data / "tls", url.split("//", 1)[1].rsplit(":", 1)[0].strip("[]"))
        print(f"HTTPS with the self-signed certificate {cert}: each phone accepts it once")
        run_simple(args.host, args.port, app, threaded=True, ssl_context=(str(cert), str(key)))
    else:
        from web_ui.server import serve_forever

        serve_forever(app, args.host, args.port, args.threads)
    return 0
