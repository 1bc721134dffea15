"""The HTML pages: start a table, join one by code, the table screen itself, and each game's rules."""
from __future__ import annotations

import importlib
from typing import Any, Mapping

from flask import Blueprint, abort, current_app, redirect, render_template, request, url_for

from companion.games import GAMES
from companion.session import TableNotFound

from web_ui.i18n import error_text
from web_ui.api import join_url, registry

bp = Blueprint("pages", __name__)


def listed_tables() -> list:
    """The start page's recent tables: only when the server was started to list them (a code lets anyone watch)."""
    return registry().summaries()[:20] if current_app.config.get("LIST_TABLES") else []


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
        return render_template("home.html", games=registry().games, tables=listed_tables(), error=error_text(error),
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
    # a finished game's page is read-only from its first paint (app.js keeps it so as the game ends or reopens)
    return render_template("table.html", table=found, join_url=join_url(found), deck=decks.resolve(found.deck)[1],
                           deck_names=registry().deck_names(), default_deck=decks.default, finished=found.finished)


def rulings(game: str, options: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The game's rulings (message ids) with the option each one is, and that option's value here."""
    module = importlib.import_module(f"companion.games.{game}")
    return [{"id": key, "ruling": text, "option": option, "value": options.get(option) if option else None}
            for key, text, option in getattr(module, "RULINGS", ())]


def rules_page(game: str, options: Mapping[str, Any], table=None):
    engine = registry().engines(game)
    defaults = engine.option_defaults()
    help_ = dict(engine.option_help)
    listed = [{"name": name, "value": options.get(name, value), "default": value, "help": help_.get(name),
               "changed": options.get(name, value) != value} for name, value in defaults.items()]
    return render_template("rules.html", game=game, table=table, rulings=rulings(game, {**defaults, **options}),
                           options=listed, games=registry().games)


@bp.get("/rules/<game>")
def rules(game: str):
    """A game's rules on the phone: what it is, every ruling (the defaults) and every option with its help."""
    if game not in GAMES or game not in registry().games:
        abort(404)
    return rules_page(game, {})


@bp.get("/t/<table_id>/rules")
def table_rules(table_id: str):
    """The rules in force at one table: its game's rulings with the table's options."""
    try:
        found = registry().get(table_id)
    except TableNotFound:
        abort(404)
    return rules_page(found.game, found.snapshot().get("options") or {}, table=found)
