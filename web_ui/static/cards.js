/* Card codes and how to draw them: the same codes as companion/cards.py. */
"use strict";
const Cards = (() => {
  const SUITS = ["S", "H", "D", "C"];
  const SYMBOL = { S: "♠", H: "♥", D: "♦", C: "♣" };
  const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
  const codes = [];
  for (const s of SUITS) for (const r of RANKS) codes.push(r + s);
  codes.push("BJ", "SJ", "BACK");

  function parse(code) {
    if (typeof code !== "string") return null;
    const text = code.trim().toUpperCase();
    if (text === "BJ" || text === "SJ" || text === "BACK") return { code: text, special: text };
    const suit = text.slice(-1), rank = text.slice(0, -1);
    if (!SYMBOL[suit] || !RANKS.includes(rank)) return null;
    return { code: rank + suit, rank, suit, red: suit === "H" || suit === "D" };
  }

  function pretty(code) {
    const c = parse(code);
    if (!c) return String(code);
    if (c.special === "BJ") return "BJ★";
    if (c.special === "SJ") return "SJ☆";
    if (c.special === "BACK") return "▒";
    return c.rank + SYMBOL[c.suit];
  }

  const RANK_NAMES = { A: N_("ace"), J: N_("jack"), Q: N_("queen"), K: N_("king") };
  const SUIT_NAMES = { S: N_("%(rank)s of spades"), H: N_("%(rank)s of hearts"), D: N_("%(rank)s of diamonds"), C: N_("%(rank)s of clubs") };
  const SPECIAL_NAMES = { BJ: N_("big joker"), SJ: N_("small joker"), BACK: N_("face down") };
  /** The card in words, for screen readers and answers: "10 of hearts" / "红桃10", "big joker" / "大王". */
  function name(code) {
    const c = parse(code);
    if (!c) return String(code);
    if (c.special) return _(SPECIAL_NAMES[c.special]);
    return _(SUIT_NAMES[c.suit], { rank: RANK_NAMES[c.rank] ? _(RANK_NAMES[c.rank]) : c.rank });
  }

  /** A small card face: <span class="pc red">10♥</span>. */
  function el(code, extraClass) {
    const span = document.createElement("span");
    const c = parse(code);
    span.className = "pc" + (c && c.red ? " red" : "") + (c && c.special ? " " + c.special.toLowerCase() : "") + (extraClass ? " " + extraClass : "");
    span.textContent = pretty(code);
    span.title = c ? c.code + " · " + name(code) : String(code);
    if (c && c.special === "BACK") span.setAttribute("aria-label", _("face down"));
    span.dataset.card = c ? c.code : String(code);
    return span;
  }

  return { SUITS, SYMBOL, RANKS, codes, parse, pretty, name, el };
})();

/* Small DOM helper used by every screen: h("div.cls#id", {attrs}, children…). */
function h(tag, attrs, ...children) {
  const [name, ...rest] = tag.split(/(?=[.#])/);
  const node = document.createElement(name || "div");
  for (const part of rest) {
    if (part[0] === ".") node.classList.add(part.slice(1));
    else node.id = part.slice(1);
  }
  if (attrs && (typeof attrs !== "object" || attrs instanceof Node || Array.isArray(attrs))) { children.unshift(attrs); attrs = null; }
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    // Through the CSSOM: a Content-Security-Policy without 'unsafe-inline' refuses style attributes, not this.
    else if (key === "style") node.style.cssText = value;
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

window.Games = window.Games || {};
