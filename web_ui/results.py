"""The end of a game: a table's result page, its charts and the picture to share (issue 30).

    /t/<id>/result               the result page: ranking, how each score came about, the charts
    /t/<id>/result/chart.svg     one chart alone (``?chart=N``, default 0: the score's), for the table pages
    /t/<id>/result.svg           the picture to share: ranking and charts in one SVG (``?download=1`` saves it)
    /api/tables/<id>/result      the engine's ``result()`` as JSON

Everything here reads the engine's ``result(state)`` (``companion/games/*/result.py``): the rules are told
once, by the engine. Who may read it: whoever may watch the table, i.e. whoever has its code or link, as
for ``/t/<id>``; an unknown code is 404. Nothing secret is in a result (no hand, no seed, no chip face
before the vault). Unfinished tables have a result too: the standings so far.
"""
from __future__ import annotations

import datetime
from typing import Any, Mapping

from flask import Blueprint, Response, abort, jsonify, render_template, request, url_for
from flask_babel import gettext as _, ngettext

from companion.games import GAME_TITLES
from companion.session import Table, TableNotFound

from web_ui.api import registry
from web_ui.charts import ChartText, line_chart, player_colours, result_picture
from web_ui.i18n import current, render

bp = Blueprint("results", __name__)


def _table(table_id: str) -> Table:
    try:
        return registry().get(table_id)
    except TableNotFound:
        abort(404)


def table_result(table: Table) -> tuple[dict[str, Any], dict[str, Any]]:
    """The engine's result of the table's current state, and the table's public facts (its snapshot's session)."""
    state = table.state   # one immutable state: a change meanwhile makes a new one
    snapshot = table.snapshot()
    account = getattr(table.engine, "result", None)
    if account is None:   # an engine without the protocol's result (a test's stand-in game): no result page
        abort(404)
    return account(state), snapshot["session"]


def unit_words(unit: str, value: int) -> str:
    if unit == "treasures":
        return ngettext("%(num)s treasure", "%(num)s treasures", value)
    if unit == "chips":
        return ngettext("%(num)s chip", "%(num)s chips", value)
    return ngettext("%(num)s point", "%(num)s points", value)


def chart_text(chart: Mapping[str, Any], result: Mapping[str, Any]) -> ChartText:
    """The chart's title and x labels in the reader's language."""
    axis, measure, at = chart["axis"], chart["measure"], chart["at"]
    if axis == "round":
        title = _("Totals by round")
        labels = [_("start") if i == 0 else _("R%(n)s", n=i) for i in at]
    elif axis == "encounter":
        title = (_("Treasures by encounter") if measure == "treasures" else
                 _("Trophies of level %(level)s or more, by encounter", level=result["details"]["trophy_min_level"]))
        labels = [_("start") if i == 0 else str(i) for i in at]
    else:
        title = _("Chips home by turn")
        labels = [_("start") if i == 0 else str(i) for i in at]
    last = labels[-1] if labels else ""
    scores = current().words(f"{name} {values[-1] if values else 0}" for name, values in chart["scores"].items())
    return ChartText(title, labels, _("after %(point)s: %(scores)s", point=last, scores=scores))


def _colours(result: Mapping[str, Any], session: Mapping[str, Any], table: Table) -> dict[str, str]:
    names = [row["player"] for row in sorted(result["ranking"], key=lambda row: _seat(table, row["player"]))]
    chosen = dict(session.get("colours") or {})
    if table.game == "kingdoms":
        # As the Kingdoms page colours them: red suits red, black suits near-black, unless the table chose.
        for player in table.record.setup.get("players", []):
            suits = set(player.get("suits") or [])
            if player.get("name") not in chosen and suits and suits <= {"H", "D"}:
                chosen[player["name"]] = "#dc2626"
            elif player.get("name") not in chosen and suits and suits <= {"S", "C"}:
                chosen[player["name"]] = "#1f2937"
    return player_colours(names, chosen)


def _seat(table: Table, name: str) -> int:
    for seat, player in enumerate(table.record.setup.get("players", [])):
        if (player.get("name") if isinstance(player, Mapping) else player) == name:
            return seat
    return 0


def _chart_svg(result: Mapping[str, Any], index: int, colours: Mapping[str, str], standalone: bool) -> str:
    chart = result["charts"][index]
    return line_chart(chart["at"], chart["scores"], colours, chart_text(chart, result), chart_id=f"chart-{index}",
                      standalone=standalone)


def status_line(result: Mapping[str, Any]) -> str:
    if result["finished"]:
        if not result["winners"]:
            return _("Finished: a draw.")
        return _("Finished: %(players)s won.", players=current().words(result["winners"]))
    return _("Not finished yet: the standings so far.")


@bp.get("/t/<table_id>/result")
def result_page(table_id: str):
    table = _table(table_id)
    if table.id != table_id:
        return Response(status=302, headers={"Location": url_for("results.result_page", table_id=table.id)})
    result, session = table_result(table)
    colours = _colours(result, session, table)
    # The score's chart always; a further one (the Dungeon's high trophies) when it shows anything but zeros.
    charts = [{"svg": _chart_svg(result, i, colours, standalone=False), "text": chart_text(chart, result)}
              for i, chart in enumerate(result["charts"])
              if i == 0 or any(value for values in chart["scores"].values() for value in values)]
    return render_template("result.html", table=table, result=result, charts=charts, colours=colours,
                           status=status_line(result), unit_words=unit_words,
                           created=_date(table.record.created_at))


@bp.get("/t/<table_id>/result/chart.svg")
def result_chart(table_id: str):
    table = _table(table_id)
    result, session = table_result(table)
    try:
        index = int(request.args.get("chart", "0"))
    except ValueError:
        abort(400)
    if not 0 <= index < len(result["charts"]):
        abort(404)
    return _svg_response(_chart_svg(result, index, _colours(result, session, table), standalone=True), session)


@bp.get("/t/<table_id>/result.svg")
def result_svg(table_id: str):
    table = _table(table_id)
    result, session = table_result(table)
    colours = _colours(result, session, table)
    title = render(GAME_TITLES.get(table.game, table.game))
    lines = [(_("#%(n)s", n=row["place"]), row["player"] + ("  ★" if row["winner"] else ""), unit_words(result["unit"], row["score"]))
             for row in result["ranking"]]
    charts = [(chart["at"], chart["scores"], colours, chart_text(chart, result)) for chart in result["charts"][:1]]
    picture = result_picture(_("%(game)s · table %(code)s", game=title, code=table.id),
                             status_line(result) + " · " + _date(table.record.created_at), lines, charts,
                             _("Card Companion · the result as the referee's engine counted it"))
    response = _svg_response(picture, session)
    if request.args.get("download"):
        response.headers["Content-Disposition"] = f'attachment; filename="result-{table.id}-{table.seq}.svg"'
    return response


@bp.get("/api/tables/<table_id>/result")
def result_json(table_id: str):
    table = registry().get(table_id)   # an unknown table: the API's JSON 404
    result, session = table_result(table)
    response = jsonify(result=result, table={"id": table.id, "game": table.game, "seq": session["seq"],
                                             "created_at": table.record.created_at,
                                             "colours": _colours(result, session, table),
                                             "page": url_for("results.result_page", table_id=table.id),
                                             "picture": url_for("results.result_svg", table_id=table.id)})
    response.headers["Cache-Control"] = "no-store"
    return response


def _svg_response(svg: str, session: Mapping[str, Any]) -> Response:
    response = Response(svg, mimetype="image/svg+xml")
    # The same address draws a newer chart after each change, in the reader's language: the phone asks
    # again each time (a 304 while nothing changed).
    response.set_etag(f"{session['seq']}-{request.accept_languages}-{request.cookies.get('lang', '')}")
    response.headers["Cache-Control"] = "no-cache"
    return response.make_conditional(request)


def _date(created_at: Any) -> str:
    try:
        return datetime.datetime.fromtimestamp(float(created_at), datetime.UTC).strftime("%Y-%m-%d")
    except (TypeError, ValueError, OverflowError):
        return ""
