/* Any game: the engine's view as a readable tree. The fallback when a game has no screen of its own,
   and the "details" drawer under every screen. */
"use strict";
(() => {
  const SKIP = new Set(["session"]);
  // Hands are secret at the table: never drawn, whatever a view carries.
  const SECRET = new Set(["hand", "hand_known", "hands"]);

  function value(v, depth) {
    if (v === null || v === undefined) return h("span.muted", "—");
    if (typeof v === "object" && !Array.isArray(v) && typeof v.msg === "string") return h("span", I18n.render(v));
    if (typeof v === "string") return Cards.parse(v) && v.length <= 4 ? Cards.el(v) : h("span", v);
    if (typeof v !== "object") return h("span", String(v));
    if (Array.isArray(v)) {
      if (v.every((x) => typeof x === "string" && Cards.parse(x))) return h("span.cards", v.map((x) => Cards.el(x)));
      if (v.length === 0) return h("span.muted", _("none"));
      return h("ol.tree", v.map((x) => h("li", value(x, depth + 1))));
    }
    return h("dl.tree", Object.entries(v).filter(([k]) => !SECRET.has(k) && (depth > 0 || !SKIP.has(k))).map(([k, x]) => [h("dt", k.replace(/_/g, " ")), h("dd", value(x, depth + 1))]));
  }

  Games.generic = {
    render(state) {
      return h("section.card-panel", h("h2", _("Table state")), value(state, 0));
    },
    details(state) {
      return h("details.card-panel.engine-details", h("summary", _("Everything the engine reports")), value(state, 0));
    },
    templates() { return []; },
  };
})();
