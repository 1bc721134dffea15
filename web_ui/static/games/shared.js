/* Pieces every game screen uses: player colours, the rulings list, the engine's own log. */
"use strict";
const Screens = (() => {
  const PALETTE = ["#dc2626", "#1f2937", "#2563eb", "#ca8a04", "#16a34a", "#9333ea", "#ea580c", "#0891b2"];

  /** Each player's colour: the one chosen at the table's start, else one of a fixed palette by seat. */
  function playerColours(state) {
    const chosen = (state.session && state.session.colours) || {};
    const colours = {};
    (state.players || []).forEach((p, seat) => {
      const name = typeof p === "string" ? p : p.name;
      colours[name] = chosen[name] || PALETTE[seat % PALETTE.length];
    });
    return colours;
  }

  function colourStyle(colours, name) {
    return colours[name] ? "--pcolour:" + colours[name] : null;
  }

  /** The rulings in force with this table's options (each the engine's message), and a link to the
      whole rules page (every option and its help, in the reader's language). */
  function rulings(state) {
    const list = state.rulings || [];
    const options = state.options || {};
    const rulesUrl = document.getElementById("app") ? document.getElementById("app").dataset.rules : null;
    return h("details.card-panel.rulings", h("summary", _("Rules in force")),
      Object.keys(options).length ? h("p.hint", Object.entries(options).map(([k, v]) => k + " = " + JSON.stringify(v)).join(" · ")) : null,
      list.length ? h("ul", list.map((r) => h("li", typeof r === "string" ? I18n.render(r)
        : [I18n.render(r.ruling || r.text || ""), r.option ? h("span.hint", " ", _("(option %(option)s = %(value)s)", { option: r.option, value: JSON.stringify(r.value) })) : null]))) : null,
      rulesUrl ? h("p", h("a", { href: rulesUrl }, _("The rules page: every ruling and option of this table"))) : null);
  }

  function engineLog(state, limit = 8) {
    const log = state.log || [];
    if (!log.length) return null;
    // Unnumbered: the numbers in the Log below are the table's change numbers, the only numbering shown.
    return h("section.card-panel", h("h2", _("What happened")), h("ul.log.story", log.slice(-limit).map((line) => h("li", I18n.render(line)))));
  }

  function progress(value, target, label) {
    const pct = target ? Math.max(0, Math.min(100, (100 * value) / target)) : 0;
    return h("div.progress", h("div.hint", _("%(label)s: %(value)s / %(target)s", { label, value, target })), h("div.bar", h("span", { style: "width:" + pct + "%" })));
  }

  /** Asks for a whole number; null when cancelled or not a number. */
  function askNumber(question, current) {
    const answer = prompt(question, current === undefined ? "" : String(current));
    if (answer === null || answer.trim() === "" || !/^\d+$/.test(answer.trim())) return null;
    return parseInt(answer.trim(), 10);
  }

  /** An empty SVG drawing and ``add(name, attrs, text)``, which appends one element to it and returns it. */
  function svgDrawing(viewBox, label, className) {
    const SVG = "http://www.w3.org/2000/svg";
    const svg = document.createElementNS(SVG, "svg");
    svg.setAttribute("viewBox", viewBox);
    if (className) svg.setAttribute("class", className);
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", label);
    const add = (name, attrs, text) => {
      const node = document.createElementNS(SVG, name);
      for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
      if (text !== undefined) node.textContent = text;
      svg.append(node);
      return node;
    };
    return { svg, add };
  }

  // The mats' zone names (calibration/layouts) as a player reads them.
  const ZONE_NAMES = {
    departure: N_("departure"), step1: N_("step 1"), "step 1": N_("step 1"), step2: N_("step 2"), "step 2": N_("step 2"), vault: N_("vault"),
    dungeon: N_("the dungeon"), marker: N_("the doubling marker"), exile: N_("exile"), battlefield: N_("the battlefield"),
    revealed: N_("the revealed card"), grid: N_("the grid"), draw: N_("the draw pile"), discard: N_("the discard pile"),
  };
  const SEAT_ZONES = { battlefield: N_("%(player)s on the battlefield"), area: N_("%(player)s's area"), rest: N_("%(player)s's rest area"),
    warehouse: N_("%(player)s's warehouse"), trophies: N_("%(player)s's trophies"), hand: N_("%(player)s's hand"), chips: N_("%(player)s's chips") };
  /** A mat zone ("step1", "battlefield:P2", "area:P1", "6,7") in words. */
  function zoneName(zone) {
    if (!zone) return "";
    if (ZONE_NAMES[zone]) return _(ZONE_NAMES[zone]);
    const seat = /^(\w+):P(\d+)$/.exec(zone);
    if (seat && SEAT_ZONES[seat[1]]) {
      const player = _("player %(n)s", { n: seat[2] });
      return _(SEAT_ZONES[seat[1]], { player });
    }
    if (/^\d+,\d+$/.test(zone)) return _("cell %(cell)s", { cell: zone });
    return zone;
  }

  const GUILD_NAMES = { S: N_("the Swordsmen"), D: N_("the Mages"), C: N_("the Thieves"), H: N_("the fourth guild") };
  const card = (code) => (code ? I18n.cardName(code) : _("a card face down"));
  const cards = (list) => (list && list.length ? I18n.list(list.map(card)) : _("nothing"));
  const cell = (c) => (Array.isArray(c) ? c.join(",") : String(c));
  const who = (p) => String(p);
  const PARITY = { odd: N_("odd"), even: N_("even") };
  /** A trap call in words ("odd" / "奇数"). */
  const parity = (call) => (PARITY[call] ? _(PARITY[call]) : call);
  // Each engine event in words, as a player would say it (the Log); unknown ones fall back to their fields.
  const PHRASES = {
    place: (e) => _("%(card)s placed at cell %(cell)s", { card: card(e.card), cell: cell(e.cell) }),
    replace: (e) => _("cell %(cell)s corrected to %(card)s", { card: card(e.card), cell: cell(e.cell) }),
    remove: (e) => _("card at cell %(cell)s taken away", { cell: cell(e.cell) }),
    turn_down: (e) => _("card at cell %(cell)s turned face down", { cell: cell(e.cell) }),
    score_round: () => _("round scored"),
    set_turn: (e) => _("%(player)s plays next", { player: who(e.player) }),
    choose_guild: (e) => _("%(player)s joins %(guild)s", { player: who(e.player), guild: GUILD_NAMES[e.guild] ? _(GUILD_NAMES[e.guild]) : e.guild }),
    reveal: (e) => (e.faces ? _("chips revealed in the vault: %(cards)s", { cards: cards(e.faces) })
      : e.card ? _("%(card)s revealed from the dungeon", { card: card(e.card) }) : _("the known top card revealed")),
    commit: (e) => _("%(player)s commits %(card)s", { player: who(e.player), card: card(e.card) }),
    turn_up: (e) => _("%(player)s turns up %(card)s", { player: who(e.player), card: card(e.card) }),
    pass: (e) => _("%(player)s passes", { player: who(e.player) }),
    resolve: () => _("encounter resolved"),
    assign: (e) => _("%(player)s takes the prize", { player: who(e.player) }),
    trap_call: (e) => _("%(player)s calls %(call)s", { player: who(e.player), call: parity(e.call) }),
    trap_draw: (e) => _("%(player)s draws %(card)s", { player: who(e.player), card: card(e.card) }),
    play_scroll: (e) => (e.target !== undefined ? _("%(player)s plays the scroll %(card)s on %(target)s", { player: who(e.player), card: card(e.card), target: who(e.target) })
      : _("%(player)s plays the scroll %(card)s", { player: who(e.player), card: card(e.card) })),
    correct_hand_size: (e) => ngettext("%(player)s holds %(n)d card", "%(player)s holds %(n)d cards", e.count, { player: who(e.player) }),
    chip: (e) => (e.card ? _("chip (%(card)s) placed on %(player)s", { card: card(e.card), player: who(e.onto) }) : _("chip placed on %(player)s", { player: who(e.onto) })),
    send: (e) => (e.medicine && e.medicine.length ? _("chosen %(card)s sent with %(medicine)s", { card: card(e.card), medicine: cards(e.medicine) })
      : _("chosen %(card)s sent", { card: card(e.card) })),
    play: (e) => _("%(card)s played on chosen #%(chosen)s", { card: card(e.card), chosen: e.chosen }),
    end_turn: () => _("turn ended"),
    set_hand_size: (e) => ngettext("%(player)s holds %(n)d card", "%(player)s holds %(n)d cards", e.size, { player: who(e.player) }),
  };
  function describeEvent(e) {
    const phrase = PHRASES[e.type];
    if (phrase) { try { return phrase(e); } catch (_error) { /* fields missing: the plain form below */ } }
    // An event this screen has no words for: its type and fields as sent (codes, the same in every language).
    return [String(e.type || _("event")).replace(/_/g, " "), ...Object.entries(e).filter(([k]) => k !== "type").map(([k, v]) => k + " " + (typeof v === "object" ? JSON.stringify(v) : v))].join(", ");
  }

  /** The scores through the game, drawn by the server as the result page draws them (web_ui/charts.py: one
      chart for every game), as an image under a link to the result page. ``key`` names what it draws (the
      scores so far): a new key is a new address, so the phone asks again only when the chart changed.
      ``label`` says it in words for a screen reader. */
  function scoreChart(title, key, label) {
    const app = document.getElementById("app");
    if (!app || !app.dataset.resultChart) return null;
    // The picture carries its own title (it is the file the result page shares too): none twice here.
    return h("section.card-panel.chart.table-chart", { "aria-label": title },
      h("img", { src: app.dataset.resultChart + "?v=" + encodeURIComponent(key), alt: label, width: 360, height: 230 }),
      h("p", h("a.link-button", { href: app.dataset.result }, _("The result: ranking and how each score came about"))));
  }

  /** "Ann 12, Bo 30": each player's score, in a sentence for the chart's label. */
  function scoresSaid(pairs) {
    return I18n.list(pairs.map(([name, value]) => _("%(player)s %(score)s", { player: name, score: value })));
  }

  return { playerColours, colourStyle, rulings, engineLog, progress, askNumber, svgDrawing, describeEvent, zoneName, parity, GUILD_NAMES,
           scoreChart, scoresSaid };
})();
