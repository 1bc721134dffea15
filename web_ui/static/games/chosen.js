/* The Chosen: the rings with each chosen and what it carries, chips per player, vault verdicts, scores,
   whose turn and their hand-size target. Built from ChosenEngine.view(). */
"use strict";
(() => {
  const ZONES = [["departure", N_("Departure")], ["step 1", N_("Step 1")], ["step 2", N_("Step 2")]];
  const CHOSEN_CARDS = ["JS", "JH", "JD", "JC", "QS", "QH", "QD", "QC", "BJ", "SJ"];
  const MEDICINE_OR_RADIATION = [];
  for (const s of ["S", "H", "D", "C"]) for (const r of ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10"]) MEDICINE_OR_RADIATION.push(r + s);

  const chipCount = (n) => ngettext("%(n)d chip", "%(n)d chips", n);

  /** One chosen as it lies on the table: its own card face up, then what it carries, card by card
      (chips face down, medicine, radiation), so a ring reads like the cards in it. */
  function chosenCard(c, colours, ctx) {
    const group = (label, cards, extraClass) => cards.length
      ? h("span.pile-part", h("span.pile-label", label), h("span.cards", cards.map((m) => Cards.el(m, extraClass)))) : null;
    const node = h("div.chosen-card", { style: Screens.colourStyle(colours, c.owner), dataset: { chosen: c.id } },
      h("div.pile-head", Cards.el(c.card, "chosen-face"), h("span", h("strong", c.owner), " · ", _("chosen #%(id)s", { id: c.id }))),
      h("div.pile",
        group(chipCount(c.chips.length), c.chips.map(() => "BACK")) || h("span.pile-part.muted", _("no chips")),
        group(_("medicine"), c.medicine), group(_("radiation"), c.radiation, "radiation")));
    if (ctx.isReferee() && c.zone !== "vault") {
      node.append(h("button.small.secondary", { type: "button", onclick: async () => {
        const card = await ctx.pick(_("Card played onto chosen #%(id)s", { id: c.id }), { only: MEDICINE_OR_RADIATION });
        if (card) ctx.send({ type: "play", chosen: c.id, card });
      } }, _("play a card on it")));
    }
    return node;
  }

  /** What lies at the vault door: the chosen waiting for a verdict (older servers: only the awaited one). */
  function atTheVault(state) {
    if (state.vault) return state.vault;
    const awaiting = state.awaiting_reveal;
    return awaiting ? [{ id: awaiting.chosen, owner: awaiting.owner, card: "BACK", zone: "vault",
      chips: Array.from({ length: awaiting.unseen_chips }, () => ({})), medicine: [], radiation: [] }] : [];
  }

  /** The mat seen from above: departure outside the big circle, step 1 and step 2 inside, the vault at the centre. */
  function mat(state) {
    const colours = Screens.playerColours(state);
    const { svg, add } = Screens.svgDrawing("0 0 300 300", _("the mat: chosen in each ring"), "mat");
    add("rect", { x: 0, y: 0, width: 300, height: 300, rx: 14, fill: "#fef3c7" });
    add("circle", { cx: 150, cy: 150, r: 104, fill: "#fde68a", stroke: "#92400e", "stroke-width": 2 });
    add("circle", { cx: 150, cy: 150, r: 62, fill: "#fcd34d", stroke: "#92400e", "stroke-width": 2 });
    add("circle", { cx: 150, cy: 150, r: 24, fill: "#a7f3d0", stroke: "#065f46", "stroke-width": 2 });
    add("text", { x: 150, y: 122, "text-anchor": "middle", "font-size": 11, fill: "#065f46" }, _("vault"));
    add("text", { x: 8, y: 16, "font-size": 11, fill: "#92400e" }, _("departure"));
    add("text", { x: 150, y: 60, "text-anchor": "middle", "font-size": 11, fill: "#92400e" }, _("step 1"));
    add("text", { x: 150, y: 102, "text-anchor": "middle", "font-size": 11, fill: "#92400e" }, _("step 2"));
    // each chosen as a dot in its owner's colour with its own card on it, what it carries beneath
    const radius = { departure: 128, "step 1": 84, "step 2": 44, vault: 0 };
    for (const [zone, r] of Object.entries(radius)) {
      const here = zone === "vault" ? atTheVault(state) : (state.mat || []).filter((c) => c.zone === zone);
      here.forEach((c, i) => {
        const angle = (2 * Math.PI * i) / Math.max(here.length, 1) + Math.PI / 4;
        const x = 150 + (r || 8 * i) * Math.cos(angle), y = 150 + r * Math.sin(angle);
        add("circle", { cx: x, cy: y, r: 16, fill: colours[c.owner] || "#6b7280", stroke: c.radiation.length ? "#b91c1c" : "#fff", "stroke-width": 3, "data-chosen": c.id });
        add("text", { x, y: y + 4, "text-anchor": "middle", "font-size": 11, fill: "#fff", "font-weight": 700 }, c.card === "BACK" ? "#" + c.id : Cards.pretty(c.card));
        const carried = chipCount(c.chips.length) + (c.medicine.length ? " " + _("+%(n)sm", { n: c.medicine.length }) : "") + (c.radiation.length ? " " + _("%(n)sr", { n: c.radiation.length }) : "");
        add("text", { x, y: y + 29, "text-anchor": "middle", "font-size": 10, "font-weight": 600 }, carried);
      });
    }
    return h("section.card-panel.chart", svg, h("p.hint", _("Dots are chosen, in their player's colour, with their own card; a red ring means radiation on it; m = medicine, r = radiation. The rings below show each card.")));
  }

  Games.chosen = {
    render(state, ctx) {
      const colours = Screens.playerColours(state);
      const turn = state.turn || {};
      const over = state.phase === "over";
      const head = h("section.card-panel",
        over ? h("h2", _("Winner: %(players)s", { players: I18n.list(state.winners || []) }))
             : h("h2", _("Turn %(n)s: %(player)s's turn", { n: turn.number, player: turn.player })),
        h("p", _("Hand-size target"), " ", h("strong.big-number-inline", String(state.hand_target)), " ",
          _("cards · draw pile %(draw)s · discard pile %(discard)s", { draw: state.draw_pile, discard: state.discard_pile })),
        turn.chip_placed_on ? h("p.hint", _("Chip placed on %(player)s this turn", { player: turn.chip_placed_on })) : null,
        turn.chosen_sent ? h("p.hint", _("%(n)s chosen sent this turn", { n: turn.chosen_sent })) : null);

      const awaiting = state.awaiting_reveal;
      const reveal = awaiting ? h("section.card-panel.alert", h("h2", ngettext("Vault: reveal %(n)d chip of %(owner)s's chosen #%(id)s", "Vault: reveal %(n)d chips of %(owner)s's chosen #%(id)s", awaiting.unseen_chips, { owner: awaiting.owner, id: awaiting.chosen })),
        ctx.isReferee() ? h("button", { type: "button", onclick: async () => {
          const faces = [];
          for (let i = 0; i < awaiting.unseen_chips; i++) {
            const card = await ctx.pick(_("Face of chip %(i)s of %(n)s", { i: i + 1, n: awaiting.unseen_chips }));
            if (!card) return;
            faces.push(card);
          }
          ctx.send({ type: "reveal", faces });
        } }, _("Reveal the chips")) : h("p.hint", _("The referee turns the chips."))) : null;

      const vault = atTheVault(state);
      const rings = h("section.rings", ZONES.map(([zone, title]) => {
        const here = (state.mat || []).filter((c) => c.zone === zone);
        return h("div.ring." + zone.replace(" ", ""), { dataset: { zone } }, h("h3", _(title) + " · " + (here.length ? _("%(n)s chosen", { n: here.length }) : _("empty"))),
          here.map((c) => chosenCard(c, colours, ctx)));
      }), h("div.ring.vault", { dataset: { zone: "vault" } }, h("h3", _("Vault") + " · " + (vault.length ? _("%(n)s waiting", { n: vault.length }) : _("empty"))),
        vault.map((c) => chosenCard(c, colours, ctx)),
        awaiting ? h("p.hint", ngettext("Chosen #%(id)s: %(n)d chip the companion has not seen face up: turn it up for the verdict.",
          "Chosen #%(id)s: %(n)d chips the companion has not seen face up: turn them up for the verdict.", awaiting.unseen_chips, { id: awaiting.chosen })) : null,
        (state.verdicts || []).length ? h("p.hint", _("Verdicts, newest first:")) : null,
        (state.verdicts || []).slice(-4).reverse().map((v) =>
        h("div.chosen-card", { style: Screens.colourStyle(colours, v.owner) },
          h("div.pile-head", Cards.el(v.card, "chosen-face"), h("span", h("strong", v.owner), " · ", _("chosen #%(id)s", { id: v.chosen }), " "),
            h("span.verdict." + (v.passed ? "win" : "lose"), v.passed ? _("passed +%(n)s", { n: v.points }) : _("shot"))),
          h("div.pile", v.chips.filter(Boolean).length ? h("span.pile-part", h("span.pile-label", _("chips")), h("span.cards", v.chips.filter(Boolean).map((c) => Cards.el(c)))) : null),
          h("div.hint", I18n.render(v.reason) + " · " + _("%(medicine)s medicine, %(radiated)s radiated chips", { medicine: v.medicine, radiated: v.radiated_chips }))))));

      const target = state.options && state.options.target_chips ? state.options.target_chips : 4;
      const players = h("section.players", (state.players || []).map((p) => h("div.card-panel.player" + (p.name === turn.player && !over ? ".turn" : ""), { style: Screens.colourStyle(colours, p.name), dataset: { player: p.name } },
        h("h3", p.name + (p.team ? " (" + p.team + ")" : "") + (p.name === turn.player && !over ? " " + _("← turn") : "")),
        h("div", _("hand %(n)s / target %(target)s", { n: p.hand_size, target: state.hand_target })),
        h("div", _("chips in area: %(n)s", { n: p.chips.length })),
        Screens.progress(p.score, target, _("chips home")),
        ctx.isReferee() ? h("div.row.wrap",
          !over ? h("button.small", { type: "button", onclick: () => ctx.send({ type: "chip", onto: p.name }) }, _("chip here")) : null,
          h("button.small.secondary", { type: "button", onclick: () => {
            const size = Screens.askNumber(_("Cards in %(player)s's hand?", { player: p.name }), p.hand_size);
            if (size !== null) ctx.send({ type: "set_hand_size", player: p.name, size });
          } }, _("hand size"))) : null)));

      const teams = (state.teams || []).length ? h("section.card-panel", h("h2", _("Teams")), (state.teams || []).map((t) => Screens.progress(t.score, t.target, t.team + " (" + I18n.list(t.members) + ")"))) : null;

      const actions = ctx.isReferee() && !over ? h("section.card-panel.referee-actions", h("h2", _("Referee: %(player)s's turn", { player: turn.player })), h("div.row.wrap",
        h("button", { type: "button", onclick: async () => {
          const card = await ctx.pick(_("Which chosen does %(player)s send?", { player: turn.player }), { only: CHOSEN_CARDS });
          if (card) ctx.send({ type: "send", card, medicine: [], discard: [] });
        } }, _("send a chosen")),
        h("button.secondary", { type: "button", onclick: () => ctx.openEvent({ type: "send", card: "JS", medicine: [], discard: [] }) }, _("send with medicine / discards…")),
        h("button", { type: "button", onclick: () => ctx.send({ type: "end_turn" }) }, _("end turn")))) : null;

      const scores = (state.players || []).map((p) => [p.name, p.score]);
      const chart = Screens.scoreChart(_("Chips home by turn"), (turn.number || 0) + ":" + scores.map((s) => s[1]).join(","),
        _("Chips home by turn") + ": " + Screens.scoresSaid(scores));
      return h("div", head, reveal, actions, mat(state), rings, players, teams, chart, Screens.engineLog(state), Screens.rulings(state));
    },
    templates() {
      return [
        { label: _("chip"), event: { type: "chip", onto: 0, card: "BACK" } },
        { label: _("send"), event: { type: "send", card: "JS", medicine: [], discard: [] } },
        { label: _("play"), event: { type: "play", chosen: 1, card: "3H" } },
        { label: _("end turn"), event: { type: "end_turn" } },
        { label: _("reveal"), event: { type: "reveal", faces: ["5H"] } },
        { label: _("hand size"), event: { type: "set_hand_size", player: 0, size: 4 } },
      ];
    },
  };
})();
