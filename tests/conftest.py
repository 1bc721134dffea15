"""What the whole suite shares: where the project's shared material lies (``../shared`` beside the checkout)."""
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
GOLDEN_KINGDOMS = SHARED / "golden" / "kingdoms_seed_example.json"
REAL_DATASET = SHARED / "datasets" / "cardcounterml"


# -- process-wide state no test may leave behind -------------------------------------------------------
import sys  # noqa: E402

import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _no_leftover_process_state():
    """Each test starts with the command line's language unset (the environment's, as a fresh shell),
    and must leave IEEE-754 subnormals working: a library that switches the CPU to flush-to-zero
    (torch.set_flush_denormal) breaks every later float test in the run, far from its cause."""
    from companion import i18n

    i18n._current.__dict__.pop("translator", None)
    yield
    i18n._current.__dict__.pop("translator", None)
    assert sys.float_info.min / 2 > 0.0, "this test left the CPU flushing subnormals to zero"


# -- the browser tests' fixtures (tests/test_browser*.py, tests/test_accessibility.py) ------------------


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium under Playwright, one per test module."""
    from playwright import sync_api

    from helpers.browser import ARGS, CHROMIUM, require_chromium

    require_chromium()
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield launched
        launched.close()


@pytest.fixture
def server(tmp_path):
    """The web app served on a free loopback port; yields its base URL."""
    from helpers.web import running_server

    with running_server(tmp_path, SSE_MAX_SECONDS=60.0) as (base, _app):
        yield base


# -- PostgreSQL (the shared store, companion/session/postgres.py) --------------------------------------
@pytest.fixture(scope="session")
def postgres_cluster():
    """One throw-away PostgreSQL cluster for the whole run (tests/helpers/postgres.py), removed at the end."""
    from helpers.postgres import cluster

    with cluster() as made:
        yield made


@pytest.fixture
def postgres_url(postgres_cluster):
    """A fresh, empty database in the session's cluster: its postgresql:// URL."""
    return postgres_cluster.new_database()


@pytest.fixture(params=["sqlite", "postgres"])
def database(request):
    """Each store in turn: None (the SQLite journal in the data folder) and a fresh PostgreSQL database's URL."""
    if request.param == "sqlite":
        return None
    return request.getfixturevalue("postgres_cluster").new_database()
