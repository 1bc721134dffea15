"""``companion serve``: a real process answers over HTTP and HTTPS, keeps its tables across restarts."""
from __future__ import annotations

import json
import os
import queue
import re
import shutil
import signal
import ssl
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

import pytest

from companion.cli import main as companion_cli
from companion.commands.serve import ensure_certificate, public_url
from helpers.ports import held_port, release_when_listening


def start(data, *extra):
    """``companion serve`` on a free port, held until it listens (helpers/ports.py)."""
    held = held_port()
    port = held.getsockname()[1]
    process = subprocess.Popen([sys.executable, "-m", "companion", "serve", "--port", str(port), "--data", str(data), *extra],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    release_when_listening(held, process)
    return process, port


def wait_until_up(url, context=None, timeout=30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2, context=context) as response:
                return response.status
        except OSError:
            time.sleep(0.2)
    raise AssertionError(f"{url} did not answer within {timeout} s")


def stop(process):
    process.send_signal(signal.SIGINT)
    try:
        return process.communicate(timeout=10)[0]
    except subprocess.TimeoutExpired:
        process.kill()
        return process.communicate()[0]


def post_json(url, body, context=None):
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(request, timeout=5, context=context) as response:
        return response.status, json.loads(response.read())


def test_serve_over_http_and_restart(tmp_path):
    process, port = start(tmp_path)
    try:
        base = f"http://127.0.0.1:{port}"
        assert wait_until_up(base + "/api/games") == 200
        status, table = post_json(base + "/api/tables", {"game": "chosen", "players": ["Ann", "Bo"]})
        assert status == 201 and table["join_url"] == f"{base}/t/{table['id']}"
    finally:
        output = stop(process)
    assert "this machine only" in output
    process, port = start(tmp_path)
    try:
        base = f"http://127.0.0.1:{port}"
        wait_until_up(base + "/api/games")
        with urllib.request.urlopen(f"{base}/api/tables/{table['id']}", timeout=5) as response:
            assert json.loads(response.read())["session"]["id"] == table["id"]
    finally:
        stop(process)


@pytest.mark.skipif(shutil.which("openssl") is None, reason="no openssl command to make a certificate")
def test_serve_over_https_with_a_self_signed_certificate(tmp_path):
    process, port = start(tmp_path, "--https")
    try:
        context = ssl.create_default_context(cafile=None)
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        assert wait_until_up(f"https://127.0.0.1:{port}/", context) == 200
        trusted = ssl.create_default_context(cafile=str(tmp_path / "tls" / "cert.pem"))
        assert wait_until_up(f"https://127.0.0.1:{port}/api/games", trusted) == 200  # the certificate names 127.0.0.1
    finally:
        stop(process)
    assert oct((tmp_path / "tls" / "key.pem").stat().st_mode & 0o777) == "0o600"


@pytest.mark.skipif(shutil.which("openssl") is None, reason="no openssl command to make a certificate")
def test_the_certificate_is_made_once(tmp_path):
    cert, key = ensure_certificate(tmp_path, "192.168.1.20")
    made = cert.read_bytes()
    text = subprocess.run(["openssl", "x509", "-in", str(cert), "-noout", "-text"], capture_output=True, text=True).stdout
    assert "IP Address:192.168.1.20" in text and "DNS:localhost" in text
    assert ensure_certificate(tmp_path, "192.168.1.20")[0].read_bytes() == made


def test_public_url_uses_the_lan_address_for_every_interface():
    assert public_url("127.0.0.1", 8000, False) == "http://127.0.0.1:8000/"
    lan = public_url("0.0.0.0", 8443, True)
    assert lan.startswith("https://") and lan.endswith(":8443/") and "0.0.0.0" not in lan


def test_a_bad_port_is_a_clean_error(tmp_path, capsys):
    assert companion_cli(["serve", "--port", "70000", "--data", str(tmp_path)]) == 2
    assert "--port" in capsys.readouterr().err


def test_no_phone_reader_makes_every_phone_send_frames(tmp_path):
    """``--no-phone-reader``: /api/models tells the page not to read (phone_reader.js then sends frames); without it, it may."""
    for extra, enabled in ((("--no-phone-reader",), False), ((), True)):
        process, port = start(tmp_path, *extra)
        try:
            base = f"http://127.0.0.1:{port}"
            assert wait_until_up(base + "/api/games") == 200
            with urllib.request.urlopen(base + "/api/models", timeout=10) as response:
                assert json.loads(response.read())["reader"]["enabled"] is enabled
        finally:
            stop(process)


def test_serve_prints_the_hosts_link_and_keeps_its_token_in_the_data_folder(tmp_path):
    """``companion serve`` tells the host where the evening's list is: it prints ``/evening#host=TOKEN`` on its own
    address, the token it wrote to DATA/host-token (readable by its owner only), and that token opens the list;
    started again on the same folder it prints the same link."""
    def serve_until_the_host_link():
        held = held_port()
        port = held.getsockname()[1]
        # unbuffered: the link must be readable while the server runs, as a terminal shows it
        process = subprocess.Popen([sys.executable, "-m", "companion", "serve", "--host", "127.0.0.1", "--port", str(port),
                                    "--data", str(tmp_path)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                   env={**os.environ, "PYTHONUNBUFFERED": "1"})
        lines: queue.Queue = queue.Queue()
        threading.Thread(target=lambda: [lines.put(line) for line in process.stdout], daemon=True).start()
        deadline, said = time.monotonic() + 60, []
        try:
            while time.monotonic() < deadline:
                try:
                    said.append(lines.get(timeout=0.5))
                except queue.Empty:
                    assert process.poll() is None, "".join(said)
                    continue
                found = re.search(rf"http://127\.0\.0\.1:{port}/evening#host=([A-Za-z0-9_-]+)", said[-1])
                if found:
                    release_when_listening(held, process)
                    return process, port, found.group(1)
        finally:
            held.close()   # listening, or never will
        process.kill()
        raise AssertionError("no host's link printed within 60 s:\n" + "".join(said))

    process, port, token = serve_until_the_host_link()
    try:
        stored = tmp_path / "host-token"
        assert stored.read_text().strip() == token and len(token) == 43
        assert stored.stat().st_mode & 0o777 == 0o600
        base = f"http://127.0.0.1:{port}"
        wait_until_up(base + "/api/games")
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(base + "/api/evening/tables", timeout=5)
        assert refused.value.code == 403
        request = urllib.request.Request(base + "/api/evening/tables", headers={"X-Host-Token": token})
        with urllib.request.urlopen(request, timeout=5) as response:
            assert response.status == 200 and json.loads(response.read())["tables"] == []
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(10)
    process, _port, again = serve_until_the_host_link()
    try:
        assert again == token
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(10)
