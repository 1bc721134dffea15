"""The HTML pages: start a table, join one by code, and the table screen itself."""
from __future__ import annotations

from flask import Blueprint, abort, current_app, redirect, render_template, request, url_for

from companion.session import TableNotFound

from web_ui.api import join_url, registry

bp = Blueprint("pages", __name__)


def listed_tables() -> list:
    """The start page's recent tables: only when the server was started to list them (a code lets anyone watch)."""
    return registry().list()[:20] if current_app.config.get("LIST_TABLES") else []


def deck_options() -> dict:
    """What the start page offers as the new table's deck: the learned decks and the server's default."""
    return {"deck_names": registry().deck_names(), "default_deck": current_app.extensions["camera"].decks.default}


@bp.get("/")
def home():
    return render_template("home.html", games=registry().games, tables=listed_tables(), **deck_options())


@bp.get("/join")
def join():
    code = request.args.get("code", "")
    try:
        table = registry().get(code)
    except TableNotFound as error:
        return render_template("home.html", games=registry().games, tables=listed_tables(), error=str(error),
                               **deck_options()), 404
    return redirect(url_for("pages.table", table_id=table.id))


@bp.get("/t/<table_id>")
def table(table_id: str):
    try:
        found = registry().get(table_id)
    except TableNotFound:
        abort(404)
    if found.id != table_id:
        return redirect(url_for("pages.table", table_id=found.id))
    decks = current_app.extensions["camera"].decks
    return render_template("table.html", table=found, join_url=join_url(found), deck=decks.resolve(found.deck)[1],
                           deck_names=registry().deck_names(), default_deck=decks.default)
