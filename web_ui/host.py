"""Who the host is: the request carries the host's token (the ``X-Host-Token`` header, or the cookie the host's
page set from its link). Kept apart from web_ui/evening.py so the API's table list asks it too."""
from __future__ import annotations

import hmac

from flask import current_app, request

HOST_COOKIE = "companion-host"
HOST_HEADER = "X-Host-Token"


def token_matches(offered: str | None) -> bool:
    expected = current_app.config.get("HOST_TOKEN")
    if not expected or not isinstance(offered, str) or len(offered) > 128:
        return False
    return hmac.compare_digest(offered.strip().encode(), expected.encode())


def is_host() -> bool:
    """This request carries the host's token (the header, or the cookie the host's page set)."""
    return token_matches(request.headers.get(HOST_HEADER)) or token_matches(request.cookies.get(HOST_COOKIE))


def may_list() -> bool:
    """The host, or anyone on a server started with ``--list-tables``."""
    return is_host() or bool(current_app.config.get("LIST_TABLES"))
