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
    return h("section.card-panel", h("h2", "What happened"), h("ol.log", { start: Math.max(1, log.length - limit + 1) }, log.slice(-limit).map((line) => h("li", typeof line === "string" ? line : JSON.stringify(line)))));
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

  return { playerColours, colourStyle, rulings, engineLog, progress, askNumber, svgDrawing };
})();
