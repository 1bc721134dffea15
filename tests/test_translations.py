"""Every user-facing string has its Simplified Chinese translation, and the catalogue holds nothing unused.

The strings are extracted from the sources exactly as ``scripts/i18n.py`` does (Python ``_``/``gettext``/
``ngettext``/``N_``/``Message``/``Plural``, Jinja ``_``/``trans``, JavaScript ``_``/``ngettext``/``N_``) and
compared with ``companion/locale/zh_Hans/LC_MESSAGES/messages.po``. A new string fails here until it is
translated (``python scripts/i18n.py update``, then translate it in the .po).
"""
import io

import pytest
from babel.messages.pofile import read_po

from companion import i18n
from companion.i18n import catalogues
from companion.messages import CardName, Message, Plural, english


@pytest.fixture(scope="module")
def result():
    return catalogues.check()


def test_every_user_facing_string_has_a_chinese_translation(result):
    missing = result.missing["zh_Hans"]
    assert not missing, f"{len(missing)} strings have no zh-Hans translation (python scripts/i18n.py update, then translate):\n" + \
        "\n".join(repr(m) for m in missing[:60])


def test_the_catalogue_holds_no_unused_entry(result):
    unused = result.unused["zh_Hans"]
    assert not unused, f"{len(unused)} catalogue entries are used nowhere (python scripts/i18n.py update drops them):\n" + \
        "\n".join(repr(m) for m in unused[:60])


def test_the_catalogue_compiles_with_matching_placeholders(result):
    assert not result.broken, result.broken


def test_the_extraction_sees_every_kind_of_source():
    where = {location for entry in catalogues.extract().values() for location, _line in entry.locations}
    assert any(path.startswith("web_ui/templates/") for path in where)
    assert any(path.startswith("web_ui/static/") and path.endswith(".js") for path in where)
    assert any(path.startswith("companion/games/") for path in where)


def test_a_broken_catalogue_is_refused_with_its_file_and_line(tmp_path):
    broken = tmp_path / "messages.po"
    broken.write_text('msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=utf-8\\n"\n\n'
                      '#, python-format\nmsgid "%(n)d cards"\nmsgstr "%(count)d 张牌"\n', encoding="utf-8")
    with pytest.raises(i18n.CatalogueError, match="messages.po"):
        i18n.compile_catalogue(broken)
    broken.write_text('msgid ""\nmsgstr ""\n\nmsgid "Undo"\nmsgstr "撤销\n', encoding="utf-8")
    with pytest.raises(i18n.CatalogueError, match="messages.po"):
        i18n.compile_catalogue(broken)


def test_a_compiled_catalogue_reads_back_as_the_po():
    data = i18n.compile_catalogue(i18n.catalogue_path("zh_Hans"))
    with open(i18n.catalogue_path("zh_Hans"), "rb") as handle:
        catalog = read_po(handle)
    from babel.support import Translations
    translations = Translations(io.BytesIO(data))
    for message in list(catalog)[1:20]:
        if isinstance(message.id, str):
            assert translations.gettext(message.id) == message.string


@pytest.mark.parametrize("code, language", [("zh-CN", "zh_Hans"), ("zh_CN.UTF-8", "zh_Hans"), ("zh-Hans", "zh_Hans"),
                                            ("zh-TW", "zh_Hans"), ("en-GB", "en"), ("EN", "en"), ("fr", None),
                                            ("", None), ("x" * 200, None), (None, None), (3, None)])
def test_language_codes_are_read_or_refused_without_error(code, language):
    assert i18n.normalize(code) == language


def test_an_unknown_language_falls_back_to_english():
    assert i18n.translator("klingon").language == "en"
    assert i18n.translator("klingon").gettext("Kingdoms") == "Kingdoms"


def test_messages_render_in_each_language_with_cards_lists_and_counts():
    message = Message("unknown game %(name)s: choose one of %(games)s", name="'x'", games=["a", "b"])
    assert str(message) == english(message) == "unknown game 'x': choose one of a, b"
    chinese = i18n.translator("zh-Hans")
    assert chinese.render(message) == "没有游戏 'x'：请从 a、b 中选一个"
    assert chinese.card_name("10H") == "红桃10" and i18n.translator("en").card_name("10H") == "10♥"
    assert chinese.card_name("BJ") == "大王" and chinese.card_name("SJ") == "小王"
    assert english(Message("the %(card)s marker", card=CardName("QS"))) == "the Q♠ marker"
    counted = Plural("%(num)d change", "%(num)d changes", n=2, num=2)
    assert str(counted) == "2 changes" and chinese.render(counted) == "2 次改动"
    # the JSON a view carries comes back as the same message
    from companion.messages import from_json
    assert from_json(message.to_json()) == message and from_json(counted.to_json()) == counted


# -- the glossaries: each game's terms as the seeds say them ----------------------------------------
GLOSSARY_DIR = catalogues.ROOT / "docs" / "glossary"
# Which catalogue entries a glossary governs: those used in a file whose path names the game (its
# engine, its screen, its table bindings), or every entry for the companion's own words.
GLOSSARY_SCOPES = {"common": "", "dungeon": "dungeon", "kingdoms": "kingdoms", "chosen": "chosen"}


def glossary(name):
    """(English forms, Chinese renderings) per row of docs/glossary/<name>.md."""
    rows = []
    for line in (GLOSSARY_DIR / f"{name}.md").read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) < 2 or not line.startswith("|") or cells[0] in ("English", "") or set(cells[0]) <= set("-"):
            continue
        rows.append(([form.strip() for form in cells[0].split("/")], [zh.strip() for zh in cells[1].split("/")]))
    return rows


def prose(msgid):
    """The words of a msgid a reader sees: placeholders, markup and code left out."""
    import re
    text = re.sub(r"%\(\w+\)[sdif]", " ", msgid)
    text = re.sub(r"<code>.*?</code>|`[^`]*`|<[^>]+>", " ", text)
    return text


@pytest.mark.parametrize("name", sorted(GLOSSARY_SCOPES))
def test_the_catalogue_uses_each_glossary_term(name):
    import re
    rows = glossary(name)
    assert len(rows) >= 8, f"docs/glossary/{name}.md lost its table"
    scope = GLOSSARY_SCOPES[name]
    extracted = catalogues.extract()
    catalog = catalogues.read_catalogue("zh_Hans")
    wrong = []
    for message in catalog:
        msgid = message.id if isinstance(message.id, str) else (message.id[0] if message.id else "")
        if not msgid or msgid not in extracted:
            continue
        if scope and not any(scope in path for path, _line in extracted[msgid].locations):
            continue
        zh = message.string if isinstance(message.string, str) else " ".join(message.string)
        words = prose(msgid)
        for forms, renderings in rows:
            pattern = r"(?<![\w-])(" + "|".join(re.escape(f) for f in forms) + r")(?![\w-])"
            if re.search(pattern, words, flags=re.IGNORECASE) and not any(r in zh for r in renderings):
                wrong.append(f"{msgid!r} → {zh!r}: {forms[0]!r} should read {renderings[0]!r}")
    assert not wrong, f"docs/glossary/{name}.md terms not followed:\n" + "\n".join(wrong[:40])
