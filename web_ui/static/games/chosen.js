/* The Chosen: the rings with each chosen and what it carries, chips per player, vault verdicts, scores,
   whose turn and their hand-size target. Built from ChosenEngine.view(). */
"use strict";
(() => {
  const ZONES = [["departure", "Departure"], ["step 1", "Step 1"], ["step 2", "Step 2"]];
  const CHOSEN_CARDS = ["JS", "JH", "JD", "JC", "QS", "QH", "QD", "QC", "BJ", "SJ"];
  const MEDICINE_OR_RADIATION = [];
  for (const s of ["S", "H", "D", "C"]) for (const r of ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10"]) MEDICINE_OR_RADIATION.push(r + s);

  function chosenCard(c, colours, ctx) {
    const node = h("div.chosen-card", { style: Screens.colourStyle(colours, c.owner), dataset: { chosen: c.id } },
      h("div", h("strong", "#" + c.id + " "), Cards.el(c.card), " " + c.owner),
      h("div.hint", c.chips.length + " chip" + (c.chips.length === 1 ? "" : "s") + " carried"),
      h("div", "medicine ", c.medicine.length ? h("span.cards", c.medicine.map((m) => Cards.el(m))) : h("span.muted", "none")),
      h("div", "radiation ", c.radiation.length ? h("span.cards", c.radiation.map((m) => Cards.el(m))) : h("span.muted", "none")));
    if (ctx.isReferee()) {
      node.append(h("button.small.secondary", { type: "button", onclick: async () => {
        const card = await ctx.pick("Card played onto chosen #" + c.id, { only: MEDICINE_OR_RADIATION });
        if (card) ctx.send({ type: "play", chosen: c.id, card });
      } }, "play a card on it"));
    }
    return node;
  }

  /** The mat seen from above: departure outside the big circle, step 1 and step 2 inside, the vault at the centre. */
  function mat(state) {
    const colours = Screens.playerColours(state);
    const { svg, add } = Screens.svgDrawing("0 0 300 300", "the mat: chosen in each ring", "mat");
    add("rect", { x: 0, y: 0, width: 300, height: 300, rx: 14, fill: "#fef3c7" });
    add("circle", { cx: 150, cy: 150, r: 104, fill: "#fde68a", stroke: "#92400e", "stroke-width": 2 });
    add("circle", { cx: 150, cy: 150, r: 62, fill: "#fcd34d", stroke: "#92400e", "stroke-width": 2 });
    add("circle", { cx: 150, cy: 150, r: 24, fill: "#a7f3d0", stroke: "#065f46", "stroke-width": 2 });
    add("text", { x: 150, y: 154, "text-anchor": "middle", "font-size": 9 }, "vault");
    add("text", { x: 8, y: 14, "font-size": 9, fill: "#92400e" }, "departure");
    add("text", { x: 150, y: 58, "text-anchor": "middle", "font-size": 9, fill: "#92400e" }, "step 1");
    add("text", { x: 150, y: 98, "text-anchor": "middle", "font-size": 9, fill: "#92400e" }, "step 2");
    const radius = { departure: 128, "step 1": 84, "step 2": 44 };
    for (const [zone, r] of Object.entries(radius)) {
      const here = (state.mat || []).filter((c) => c.zone === zone);
      here.forEach((c, i) => {
        const angle = (2 * Math.PI * i) / Math.max(here.length, 1) + Math.PI / 4;
        const x = 150 + r * Math.cos(angle), y = 150 + r * Math.sin(angle);
        add("circle", { cx: x, cy: y, r: 13, fill: colours[c.owner] || "#6b7280", stroke: c.radiation.length ? "#b91c1c" : "#fff", "stroke-width": 3, "data-chosen": c.id });
        add("text", { x, y: y + 4, "text-anchor": "middle", "font-size": 10, fill: "#fff", "font-weight": 700 }, "#" + c.id);
        add("text", { x, y: y + 24, "text-anchor": "middle", "font-size": 8 }, c.chips.length + " chip" + (c.chips.length === 1 ? "" : "s") + (c.medicine.length ? " +" + c.medicine.length + "m" : "") + (c.radiation.length ? " " + c.radiation.length + "r" : ""));
      });
    }
    return h("section.card-panel.chart", svg, h("p.hint", "Dots are chosen (colour = player); a red ring means radiation on it; m = medicine, r = radiation."));
  }

  Games.chosen = {
    render(state, ctx) {
      const colours = Screens.playerColours(state);
      const turn = state.turn || {};
      const over = state.phase === "over";
      const head = h("section.card-panel",
        over ? h("h2", "Winner: " + (state.winners || []).join(" and "))
             : h("h2", "Turn " + turn.number + ": " + turn.player + "'s turn"),
        h("p", "Hand-size target ", h("strong.big-number-inline", String(state.hand_target)), " cards · draw pile " + state.draw_pile + " · discard " + state.discard_pile),
        turn.chip_placed_on ? h("p.hint", "Chip placed on " + turn.chip_placed_on + " this turn") : null,
        turn.chosen_sent ? h("p.hint", turn.chosen_sent + " chosen sent this turn") : null);

      const awaiting = state.awaiting_reveal;
      const reveal = awaiting ? h("section.card-panel.alert", h("h2", "Vault: reveal " + awaiting.unseen_chips + " chip(s) of " + awaiting.owner + "'s chosen #" + awaiting.chosen),
        ctx.isReferee() ? h("button", { type: "button", onclick: async () => {
          const faces = [];
          for (let i = 0; i < awaiting.unseen_chips; i++) {
            const card = await ctx.pick("Face of chip " + (i + 1) + " of " + awaiting.unseen_chips);
            if (!card) return;
            faces.push(card);
          }
          ctx.send({ type: "reveal", faces });
        } }, "Reveal the chips") : h("p.hint", "The referee turns the chips.")) : null;

      const rings = h("section.rings", ZONES.map(([zone, title]) => {
        const here = (state.mat || []).filter((c) => c.zone === zone);
        return h("div.ring." + zone.replace(" ", ""), { dataset: { zone } }, h("h3", title + " (" + here.length + ")"), here.map((c) => chosenCard(c, colours, ctx)));
      }), h("div.ring.vault", { dataset: { zone: "vault" } }, h("h3", "Vault"),
        // What lies at the vault now: a chosen waiting for its chips to be turned, its chips face down.
        (state.mat || []).filter((c) => c.zone === "vault").map((c) => chosenCard(c, colours, ctx)),
        awaiting ? h("div.chosen-card.waiting", { style: Screens.colourStyle(colours, awaiting.owner), dataset: { chosen: awaiting.chosen } },
          h("div", h("strong", "#" + awaiting.chosen + " "), awaiting.owner + "'s chosen, waiting for its verdict"),
          h("div", "chips ", h("span.cards", Array.from({ length: awaiting.unseen_chips }, () => Cards.el("BACK"))), h("span.hint", " face down: turn them up"))) : null,
        (state.verdicts || []).length ? h("p.hint", "Verdicts, newest first:") : null,
        (state.verdicts || []).slice(-4).reverse().map((v) =>
        h("div.chosen-card", { style: Screens.colourStyle(colours, v.owner) },
          h("div", "#" + v.chosen + " ", Cards.el(v.card), " " + v.owner),
          h("span.verdict." + (v.passed ? "win" : "lose"), v.passed ? "passed +" + v.points : "shot"),
          h("div.hint", v.reason + (v.chips.length ? " · chips " : ""), v.chips.filter(Boolean).map((c) => Cards.el(c)),
            " · " + v.medicine + " medicine, " + v.radiated_chips + " radiated")))));

      const target = state.options && state.options.target_chips ? state.options.target_chips : 4;
      const players = h("section.players", (state.players || []).map((p) => h("div.card-panel.player" + (p.name === turn.player && !over ? ".turn" : ""), { style: Screens.colourStyle(colours, p.name), dataset: { player: p.name } },
        h("h3", p.name + (p.team ? " (" + p.team + ")" : "") + (p.name === turn.player && !over ? " ← turn" : "")),
        h("div", "hand " + p.hand_size + " / target " + state.hand_target),
        h("div", "chips in area: " + p.chips.length),
        Screens.progress(p.score, target, "chips home"),
        ctx.isReferee() ? h("div.row.wrap",
          !over ? h("button.small", { type: "button", onclick: () => ctx.send({ type: "chip", onto: p.name }) }, "chip here") : null,
          h("button.small.secondary", { type: "button", onclick: () => {
            const size = Screens.askNumber("Cards in " + p.name + "'s hand?", p.hand_size);
            if (size !== null) ctx.send({ type: "set_hand_size", player: p.name, size });
          } }, "hand size")) : null)));

      const teams = (state.teams || []).length ? h("section.card-panel", h("h2", "Teams"), (state.teams || []).map((t) => Screens.progress(t.score, t.target, t.team + " (" + t.members.join(", ") + ")"))) : null;

      const actions = ctx.isReferee() && !over ? h("section.card-panel.referee-actions", h("h2", "Referee: " + turn.player + "'s turn"), h("div.row.wrap",
        h("button", { type: "button", onclick: async () => {
          const card = await ctx.pick("Which chosen does " + turn.player + " send?", { only: CHOSEN_CARDS });
          if (card) ctx.send({ type: "send", card, medicine: [], discard: [] });
        } }, "send a chosen"),
        h("button.secondary", { type: "button", onclick: () => ctx.openEvent({ type: "send", card: "JS", medicine: [], discard: [] }) }, "send with medicine / discards…"),
        h("button", { type: "button", onclick: () => ctx.send({ type: "end_turn" }) }, "end turn"))) : null;

      return h("div", head, reveal, actions, mat(state), rings, players, teams, Screens.engineLog(state), Screens.rulings(state));
    },
    templates() {
      return [
        { label: "chip", event: { type: "chip", onto: 0, card: "BACK" } },
        { label: "send", event: { type: "send", card: "JS", medicine: [], discard: [] } },
        { label: "play", event: { type: "play", chosen: 1, card: "3H" } },
        { label: "end turn", event: { type: "end_turn" } },
        { label: "reveal", event: { type: "reveal", faces: ["5H"] } },
        { label: "hand size", event: { type: "set_hand_size", player: 0, size: 4 } },
      ];
    },
  };
})();
