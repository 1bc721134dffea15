/* The camera's open questions on the board: each marked where it applies (a Kingdoms cell, a zone, a
   player) and answered with one tap: a card the camera considered, "something else" (the card picker)
   or "not a card". An answer is the referee's event (POST …/questions/<id>): journaled, undoable. */
"use strict";
window.Questions = (() => {
  const $ = (id) => document.getElementById(id);
  let open = [];          // the open questions, oldest first
  let signature = "";
  let ctx = null, apiUrl = "", getPin = () => null;

  function placeLabel(q) {
    const w = q.where || {};
    if (w.cell) return _("cell %(cell)s", { cell: w.cell.join(",") });
    if (w.player) return w.player;
    if (w.zone) return Screens.zoneName(w.zone);
    return _("the table");
  }
  const text = (q) => I18n.render(q.text);

  /** The board's element a question is about, if the screen drew one. */
  function target(board, q) {
    const w = q.where || {};
    if (w.cell) return board.querySelector('.kgrid:not(.final) [data-cell="' + w.cell.join(",") + '"]');
    if (w.player) return board.querySelector('.players [data-player="' + CSS.escape(w.player) + '"]');
    if (w.zone) {
      // the mat calls them step1/step2; the screen's rings say "step 1"/"step 2"
      const named = w.zone.replace(/^step(\d)$/, "step $1");
      return board.querySelector('[data-zone="' + CSS.escape(named) + '"]') || board.querySelector('[data-zone="' + CSS.escape(w.zone) + '"]');
    }
    return null;
  }

  /** Marks each question's place on a freshly drawn board and returns the list panel (or null). */
  function decorate(board) {
    for (const q of open) {
      const node = target(board, q);
      if (!node) continue;
      node.classList.add("asked");
      const badge = h("button.ask-badge", { type: "button", "aria-label": _("camera question: %(text)s", { text: text(q) }), dataset: { question: q.id },
        onclick: (event) => { event.stopPropagation(); show(q); } }, "?");
      if (node.tagName === "BUTTON") {
        // a button cannot hold another: the cell itself opens the question
        node.dataset.question = q.id;
        node.setAttribute("aria-label", _("cell %(cell)s: camera question", { cell: (q.where.cell || []).join(",") }));
        node.addEventListener("click", (event) => { event.stopImmediatePropagation(); show(q); }, { capture: true });
        node.append(h("span.ask-mark", { "aria-hidden": "true" }, "?"));
      } else {
        node.prepend(badge);
      }
    }
    if (!open.length) return null;
    return h("section.card-panel.questions", { "aria-label": _("camera questions") },
      h("h2", _("The camera asks (%(n)s)", { n: open.length })),
      h("ul.question-list", open.map((q) => h("li", h("button.secondary.question-open", { type: "button", dataset: { question: q.id }, onclick: () => show(q) },
        h("strong", _("%(place)s: ", { place: placeLabel(q) })), text(q))))),
      ctx && ctx.isReferee() ? null : h("p.hint", _("The referee answers these.")));
  }

  function show(q) {
    const referee = ctx.isReferee();
    $("question-text").textContent = text(q);
    $("question-where").textContent = q.choices.length
      ? _("At %(place)s · the camera considered %(cards)s", { place: placeLabel(q), cards: I18n.list(q.choices.map(I18n.cardName)) })
      : _("At %(place)s", { place: placeLabel(q) });
    $("question-error").hidden = true;
    const choices = referee ? q.choices.map((code) => h("button.secondary.question-choice", { type: "button", dataset: { card: code }, onclick: () => answer(q, code) }, Cards.el(code), " ", Cards.name(code))) : [];
    $("question-choices").replaceChildren(...choices);
    $("question-other").hidden = !referee;
    $("question-none").hidden = !referee;
    $("question-other").onclick = async () => {
      $("question-dialog").close();
      const card = await ctx.pick(_("What lies at %(place)s?", { place: placeLabel(q) }));
      if (card) answer(q, card, true);
    };
    $("question-none").onclick = () => answer(q, "not a card");
    $("question-dialog").showModal();
  }

  async function answer(q, value, fromPicker) {
    const response = await fetch(apiUrl + "/questions/" + q.id, {
      method: "POST", headers: { "Content-Type": "application/json", "X-Referee-Pin": getPin() || "" },
      body: JSON.stringify({ answer: value }),
    });
    const data = await response.json().catch(() => ({}));
    if (!response.ok) {
      if (fromPicker) { ctx.say(data.error || response.statusText, "error"); return; }
      $("question-error").textContent = data.error || response.statusText;
      $("question-error").hidden = false;
      return;
    }
    if ($("question-dialog").open) $("question-dialog").close();
    open = open.filter((o) => o.id !== q.id);
    signature = "";
    const card = value === "not a card" ? null : I18n.cardName(value);
    ctx.say(card === null ? _("Noted: not a card. Nothing changed.")
      : data.entry ? _("Answered %(card)s: the table now says so (Undo takes it back).", { card })
      : _("Answered %(card)s: the table said so already.", { card }));
    ctx.accept && data.state ? ctx.accept(data.state) : ctx.rerender();
  }

  /** New camera status: keeps the open questions and redraws the board when they changed. */
  function update(questions) {
    open = (questions || []).filter((q) => q.status === "open");
    const next = open.map((q) => q.id).join(",");
    if (next !== signature) { signature = next; if (ctx) ctx.rerender(); }
  }

  function init(context, url, pinGetter) {
    ctx = context; apiUrl = url; getPin = pinGetter;
    $("question-cancel").addEventListener("click", () => $("question-dialog").close());
  }

  return { init, update, decorate, show, get open() { return open; } };
})();
