/* The browser's gettext: the page's catalogue (window.I18N, served by the app from the same compiled
   catalogue as the server's text: web_ui/i18n.py), and messages from the engines rendered here, so
   each phone reads a table in its own language.

   _("Undo")                                   a string, translated
   _("%(name)s's turn", { name: "Ann" })       with named parameters (the catalogue's %(name)s)
   ngettext("%(n)d card", "%(n)d cards", n)    a count ({n} is filled in)
   N_("Camera")                                marks a string translated later, where it is shown
   I18n.render({ msg, args })                  a message a view or the live stream carried
   I18n.cardName("10H")                        a card as the reader says it: "10♥" / "红桃10"

   Strings are extracted by scripts/i18n.py (keywords _, ngettext, N_): write them as plain string
   literals, not template literals or concatenations, so the extractor sees them. */
"use strict";
const I18n = (() => {
  const data = window.I18N || { language: document.documentElement.lang || "en", messages: {} };
  const language = data.language || "en";
  const messages = data.messages || {};
  const chinese = language.startsWith("zh");
  const listSeparator = chinese ? "、" : ", ";

  function fill(text, args) {
    if (!args) return text;
    return text.replace(/%(?:\((\w+)\))?([sdif%])/g, (whole, key, type) => {
      if (type === "%") return "%";
      if (!key || !(key in args)) return whole;
      const value = args[key];
      return type === "d" || type === "i" ? String(Math.trunc(Number(value))) : String(value);
    });
  }

  function gettext(id, args) {
    const found = messages[id];
    const text = typeof found === "string" && found ? found : Array.isArray(found) && found[0] ? found[0] : id;
    return fill(text, args);
  }

  function pluralIndex(n) { return chinese ? 0 : (n === 1 ? 0 : 1); }

  function ngettext(singular, plural, n, args) {
    const forms = messages[singular];
    const text = Array.isArray(forms) && forms[pluralIndex(n)] ? forms[pluralIndex(n)] : (n === 1 ? singular : plural);
    return fill(text, Object.assign({ n }, args || {}));
  }

  const SUIT_PATTERNS = { S: N_("%(rank)s♠"), H: N_("%(rank)s♥"), D: N_("%(rank)s♦"), C: N_("%(rank)s♣") };
  const SPECIAL = { BJ: N_("big joker"), SJ: N_("small joker"), BACK: N_("face-down card") };
  function N_(id) { return id; }

  /** A card in a sentence, as a player of this language says it. */
  function cardName(code) {
    const text = String(code).trim().toUpperCase();
    if (SPECIAL[text]) return gettext(SPECIAL[text]);
    const suit = text.slice(-1), rank = text.slice(0, -1);
    if (SUIT_PATTERNS[suit] && rank) return gettext(SUIT_PATTERNS[suit], { rank });
    return String(code);
  }

  function arg(value) {
    if (Array.isArray(value)) return value.map(arg).join(listSeparator);
    if (value && typeof value === "object") {
      if ("msg" in value) return render(value);
      if ("card" in value) return cardName(value.card);
    }
    return value;
  }

  /** A message from a view or the live stream: {msg, args} (and plural, n), or plain text. */
  function render(message) {
    if (message === null || message === undefined) return "";
    if (typeof message === "string") return gettext(message);
    const args = {};
    for (const [key, value] of Object.entries(message.args || {})) args[key] = arg(value);
    if (message.plural) return ngettext(message.msg, message.plural, message.n, args);
    return gettext(message.msg, args);
  }

  function number(value) {
    try { return new Intl.NumberFormat(language).format(value); } catch (_) { return String(value); }
  }

  function list(items) { return items.join(listSeparator); }

  return { _: gettext, gettext, ngettext, N_, render, cardName, number, list, language, chinese };
})();
const _ = I18n._;
const ngettext = I18n.ngettext;
const N_ = I18n.N_;
