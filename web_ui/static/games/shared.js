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

  function rulings(state) {
    const list = state.rulings || [];
    const options = state.options || {};
    return h("details.card-panel", h("summary", "Rules in force"),
      Object.keys(options).length ? h("p.hint", Object.entries(options).map(([k, v]) => k + " = " + JSON.stringify(v)).join(" · ")) : null,
      list.length ? h("ul", list.map((r) => h("li", typeof r === "string" ? r : [r.ruling || r.text || JSON.stringify(r), r.option ? h("span.hint", " (option " + r.option + " = " + JSON.stringify(r.value) + ")") : null]))) : null);
  }

  function engineLog(state, limit = 8) {
    const log = state.log || [];
    if (!log.length) return null;
    // Unnumbered: the numbers in the Log below are the table's change numbers, the only numbering shown.
    return h("section.card-panel", h("h2", "What happened"), h("ul.log.story", log.slice(-limit).map((line) => h("li", typeof line === "string" ? line : JSON.stringify(line)))));
  }

  function progress(value, target, label) {
    const pct = target ? Math.max(0, Math.min(100, (100 * value) / target)) : 0;
    return h("div.progress", h("div.hint", label + ": " + value + " / " + target), h("div.bar", h("span", { style: "width:" + pct + "%" })));
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

  const GUILD_NAMES = { S: "the Swordsmen", D: "the Mages", C: "the Thieves", H: "the Hearts" };
  const card = (code) => (code ? Cards.pretty(code) : "a card face down");
  const cards = (list) => (list && list.length ? list.map(card).join(", ") : "nothing");
  const cell = (c) => "cell " + (Array.isArray(c) ? c.join(",") : c);
  // Each engine event in words, as a player would say it (the Log); unknown ones fall back to their fields.
  const PHRASES = {
    place: (e) => card(e.card) + " placed at " + cell(e.cell),
    replace: (e) => cell(e.cell) + " corrected to " + card(e.card),
    remove: (e) => "card at " + cell(e.cell) + " taken away",
    turn_down: (e) => "card at " + cell(e.cell) + " turned face down",
    score_round: () => "round scored",
    set_turn: (e) => e.player + " plays next",
    choose_guild: (e) => e.player + " joins " + (GUILD_NAMES[e.guild] || e.guild),
    reveal: (e) => (e.faces ? "chips revealed in the vault: " + cards(e.faces) : e.card ? card(e.card) + " revealed from the dungeon" : "the known top card revealed"),
    commit: (e) => e.player + " commits " + card(e.card),
    turn_up: (e) => e.player + " turns up " + card(e.card),
    pass: (e) => e.player + " passes",
    resolve: () => "encounter resolved",
    assign: (e) => e.player + " takes the prize",
    trap_call: (e) => e.player + " calls " + e.call,
    trap_draw: (e) => e.player + " draws " + card(e.card),
    play_scroll: (e) => e.player + " plays the scroll " + card(e.card) + (e.target !== undefined ? " on " + e.target : ""),
    correct_hand_size: (e) => e.player + " holds " + e.count + " cards",
    chip: (e) => "chip " + (e.card ? "(" + card(e.card) + ") " : "") + "placed on " + e.onto,
    send: (e) => "chosen " + card(e.card) + " sent" + (e.medicine && e.medicine.length ? " with " + cards(e.medicine) : ""),
    play: (e) => card(e.card) + " played on chosen #" + e.chosen,
    end_turn: () => "turn ended",
    set_hand_size: (e) => e.player + " holds " + e.size + " cards",
  };
  function describeEvent(e) {
    const phrase = PHRASES[e.type];
    if (phrase) { try { return phrase(e); } catch (_) { /* fields missing: the plain form below */ } }
    return [String(e.type || "event").replace(/_/g, " "), ...Object.entries(e).filter(([k]) => k !== "type").map(([k, v]) => k + " " + (typeof v === "object" ? JSON.stringify(v) : v))].join(", ");
  }

  return { playerColours, colourStyle, rulings, engineLog, progress, askNumber, svgDrawing, describeEvent };
})();
