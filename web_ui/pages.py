"""The HTML pages: start a table, join one by code, and the table screen itself."""
from __future__ import annotations

from flask import Blueprint, abort, redirect, render_template, request, url_for

from companion.session import TableNotFound

from web_ui.api import join_url, registry

bp = Blueprint("pages", __name__)


@bp.get("/")
def home():
    return render_template("home.html", games=registry().games, tables=registry().list()[:20])


@bp.get("/join")
def join():
    code = request.args.get("code", "")
    try:
        table = registry().get(code)
    except TableNotFound as error:
        return render_template("home.html", games=registry().games, tables=registry().list()[:20], error=str(error)), 404
    return redirect(url_for("pages.table", table_id=table.id))


@bp.get("/t/<table_id>")
def table(table_id: str):
    try:
        found = registry().get(table_id)
    except TableNotFound:
        abort(404)
    if found.id != table_id:
        return redirect(url_for("pages.table", table_id=found.id))
    return render_template("table.html", table=found, join_url=join_url(found))
