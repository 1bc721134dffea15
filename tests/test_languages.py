"""Choosing the language, and what an unknown language code does: wherever a code comes in (the
browser's Accept-Language, ``?lang=``, the ``lang`` cookie, the switch, ``serve --language``, the
server's config, ``--language`` and ``COMPANION_LANGUAGE`` on the command line) a code the companion
does not have falls back to the default with no error, while a known one is obeyed (so the fallback
is seen to be a fallback, not the only language there is)."""
from __future__ import annotations

import re
import subprocess
import sys
import urllib.request

from companion import i18n
from companion.cli import main as companion_cli
from helpers.web import make_app
from test_web_serve import start, wait_until_up

UNKNOWN = ("tlh", "xx-YY", "de-DE", "", "zh-" + "x" * 60, "../../etc", "en;q=oops")
SCENARIO = "docs/scenarios/dungeon/three_then_nine_makes_27.json"


def page_language(response) -> str:
    found = re.search(r'<html lang="([^"]+)"', response.get_data(as_text=True))
    assert found, response.get_data(as_text=True)[:200]
    return found.group(1)


def test_accept_language_chooses_and_an_unknown_one_falls_back(tmp_path):
    client = make_app(tmp_path).test_client()
    assert page_language(client.get("/", headers={"Accept-Language": "zh-CN,zh;q=0.9"})) == "zh-Hans"
    assert page_language(client.get("/", headers={"Accept-Language": "de-DE, tlh;q=0.8, zh-TW;q=0.5"})) == "zh-Hans"
    for code in UNKNOWN:
        response = client.get("/", headers={"Accept-Language": code})
        assert response.status_code == 200 and page_language(response) == "en", code
    # on a server whose default is Chinese, the unknown code reads Chinese
    chinese = make_app(tmp_path / "zh", LANGUAGE="zh-Hans").test_client()
    assert page_language(chinese.get("/", headers={"Accept-Language": "tlh"})) == "zh-Hans"


def test_an_unknown_lang_parameter_or_cookie_falls_back_and_is_not_remembered(tmp_path):
    client = make_app(tmp_path).test_client()
    response = client.get("/?lang=zh-Hans")
    assert page_language(response) == "zh-Hans" and "lang=zh-Hans" in response.headers["Set-Cookie"]
    client.delete_cookie("lang")
    for code in UNKNOWN:
        response = client.get("/", query_string={"lang": code})
        assert response.status_code == 200 and page_language(response) == "en", code
        assert "Set-Cookie" not in response.headers, code
        client.set_cookie("lang", code)
        response = client.get("/")
        assert response.status_code == 200 and page_language(response) == "en", code
        client.delete_cookie("lang")
    # the cookie a phone remembered wins over its browser's language; a broken one does not
    client.set_cookie("lang", "zh-Hans")
    assert page_language(client.get("/", headers={"Accept-Language": "en"})) == "zh-Hans"
    client.set_cookie("lang", "tlh")
    assert page_language(client.get("/", headers={"Accept-Language": "zh"})) == "zh-Hans"


def test_the_switch_and_the_catalogue_take_an_unknown_code_as_the_default(tmp_path):
    client = make_app(tmp_path).test_client()
    response = client.get("/language", query_string={"to": "zh-Hans", "next": "/rules/grid"})
    assert response.status_code == 302 and response.headers["Location"].endswith("/rules/grid")
    assert "lang=zh-Hans" in response.headers["Set-Cookie"]
    for code in UNKNOWN:
        response = client.get("/language", query_string={"to": code, "next": "/"})
        assert response.status_code == 302 and "lang=en;" in response.headers["Set-Cookie"], code
    assert client.get("/i18n/zh-Hans.json").get_json()["language"] == "zh-Hans"
    for code in ("tlh", "xx-YY", "de"):
        response = client.get(f"/i18n/{code}.json")
        assert response.status_code == 200 and response.get_json() == {"language": "en", "messages": {}}, code


def test_an_api_error_answers_in_the_phones_language_and_in_the_default_for_an_unknown_one(tmp_path):
    client = make_app(tmp_path).test_client()
    chinese = client.get("/api/tables/ZZZZZZ", headers={"Accept-Language": "zh-CN"})
    assert chinese.status_code == 404 and re.search(r"[\u4e00-\u9fff]", chinese.get_json()["error"])
    unknown = client.get("/api/tables/ZZZZZZ", headers={"Accept-Language": "tlh"})
    assert unknown.status_code == 404 and unknown.get_json()["error"].isascii()


def test_a_server_config_with_an_unknown_language_serves_the_default(tmp_path):
    client = make_app(tmp_path, LANGUAGE="tlh").test_client()
    response = client.get("/")
    assert response.status_code == 200 and page_language(response) == "en"


def test_serve_language_unknown_says_so_and_serves_english(tmp_path):
    process, port = start(tmp_path, "--language", "tlh")
    try:
        assert wait_until_up(f"http://127.0.0.1:{port}/") == 200
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as response:
            assert '<html lang="en">' in response.read().decode()
    finally:
        process.terminate()
        output = process.communicate(timeout=20)[0]
    assert "--language tlh is not a language the companion has (en, zh-Hans): the pages default to English" in output
    assert "Traceback" not in output


def test_serve_language_chinese_is_the_pages_default(tmp_path):
    process, port = start(tmp_path, "--language", "zh-Hans")
    try:
        assert wait_until_up(f"http://127.0.0.1:{port}/") == 200
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as response:
            assert '<html lang="zh-Hans">' in response.read().decode()
    finally:
        process.terminate()
        process.communicate(timeout=20)


def test_the_command_line_falls_back_from_an_unknown_language(capsys, monkeypatch):
    for variable in ("COMPANION_LANGUAGE", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(variable, raising=False)
    assert companion_cli(["--language", "zh-Hans", "dungeon", "replay", SCENARIO]) == 0
    assert "加入剑士工会" in capsys.readouterr().out
    assert companion_cli(["--language", "tlh", "dungeon", "replay", SCENARIO]) == 0
    out = capsys.readouterr().out
    assert "joins the Swordsmen" in out and not re.search(r"[\u4e00-\u9fff]", out)
    monkeypatch.setenv("COMPANION_LANGUAGE", "zh-Hans")
    assert companion_cli(["dungeon", "replay", SCENARIO]) == 0
    assert "加入剑士工会" in capsys.readouterr().out
    for code in ("tlh", "xx_YY.UTF-8", ":::"):
        monkeypatch.setenv("COMPANION_LANGUAGE", code)
        assert companion_cli(["dungeon", "replay", SCENARIO]) == 0, code
        out = capsys.readouterr().out
        assert "joins the Swordsmen" in out and not re.search(r"[\u4e00-\u9fff]", out), code
    # an unknown COMPANION_LANGUAGE gives way to the next variable the shell sets
    monkeypatch.setenv("COMPANION_LANGUAGE", "tlh")
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    assert companion_cli(["dungeon", "replay", SCENARIO]) == 0
    assert "加入剑士工会" in capsys.readouterr().out
    assert i18n.current().language == "zh_Hans"


def test_a_process_with_an_unknown_language_runs_in_english():
    env = {"PATH": "/usr/bin:/bin", "COMPANION_LANGUAGE": "tlh", "LANG": "C.UTF-8"}
    result = subprocess.run([sys.executable, "-m", "companion", "--language", "xx", "dungeon", "replay", SCENARIO],
                            capture_output=True, text=True, timeout=120, env=env)
    assert result.returncode == 0, result.stderr
    assert "joins the Swordsmen" in result.stdout and "Traceback" not in result.stderr
