/* The Chosen: the rings with each chosen and what it carries, chips per player, vault verdicts, scores,
   whose turn and their hand-size target. Built from ChosenEngine.view(). */
"use strict";
(() => {
  const ZONES = [["departure", "Departure"], ["step 1", "Step 1"], ["step 2", "Step 2"]];
  const CHOSEN_CARDS = ["JS", "JH", "JD", "JC", "QS", "QH", "QD", "QC", "BJ", "SJ"];
  const MEDICINE_OR_RADIATION = [];
  for (const s of ["S", "H", "D", "C"]) for (const r of ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10"]) MEDICINE_OR_RADIATION.push(r + s);

  const plural = (n, word) => n + " " + word + (n === 1 ? "" : "s");

  /** One chosen as it lies on the table: its own card face up, then what it carries, card by card
      (chips face down, medicine, radiation), so a ring reads like the cards in it. */
  function chosenCard(c, colours, ctx) {
    const group = (label, cards, extraClass) => cards.length
      ? h("span.pile-part", h("span.pile-label", label), h("span.cards", cards.map((m) => Cards.el(m, extraClass)))) : null;
    const node = h("div.chosen-card", { style: Screens.colourStyle(colours, c.owner), dataset: { chosen: c.id } },
      h("div.pile-head", Cards.el(c.card, "chosen-face"), h("span", h("strong", c.owner), " · chosen #" + c.id)),
      h("div.pile",
        group(plural(c.chips.length, "chip"), c.chips.map(() => "BACK")) || h("span.pile-part.muted", "no chips"),
        group("medicine", c.medicine), group("radiation", c.radiation, "radiation")));
    if (ctx.isReferee() && c.zone !== "vault") {
      node.append(h("button.small.secondary", { type: "button", onclick: async () => {
        const card = await ctx.pick("Card played onto chosen #" + c.id, { only: MEDICINE_OR_RADIATION });
        if (card) ctx.send({ type: "play", chosen: c.id, card });
      } }, "play a card on it"));
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
    const { svg, add } = Screens.svgDrawing("0 0 300 300", "the mat: chosen in each ring", "mat");
    add("rect", { x: 0, y: 0, width: 300, height: 300, rx: 14, fill: "#fef3c7" });
    add("circle", { cx: 150, cy: 150, r: 104, fill: "#fde68a", stroke: "#92400e", "stroke-width": 2 });
    add("circle", { cx: 150, cy: 150, r: 62, fill: "#fcd34d", stroke: "#92400e", "stroke-width": 2 });
    add("circle", { cx: 150, cy: 150, r: 24, fill: "#a7f3d0", stroke: "#065f46", "stroke-width": 2 });
    add("text", { x: 150, y: 122, "text-anchor": "middle", "font-size": 11, fill: "#065f46" }, "vault");
    add("text", { x: 8, y: 16, "font-size": 11, fill: "#92400e" }, "departure");
    add("text", { x: 150, y: 60, "text-anchor": "middle", "font-size": 11, fill: "#92400e" }, "step 1");
    add("text", { x: 150, y: 102, "text-anchor": "middle", "font-size": 11, fill: "#92400e" }, "step 2");
    // each chosen as a dot in its owner's colour with its own card on it, what it carries beneath
    const radius = { departure: 128, "step 1": 84, "step 2": 44, vault: 0 };
    for (const [zone, r] of Object.entries(radius)) {
      const here = zone === "vault" ? atTheVault(state) : (state.mat || []).filter((c) => c.zone === zone);
      here.forEach((c, i) => {
        const angle = (2 * Math.PI * i) / Math.max(here.length, 1) + Math.PI / 4;
        const x = 150 + (r || 8 * i) * Math.cos(angle), y = 150 + r * Math.sin(angle);
        add("circle", { cx: x, cy: y, r: 16, fill: colours[c.owner] || "#6b7280", stroke: c.radiation.length ? "#b91c1c" : "#fff", "stroke-width": 3, "data-chosen": c.id });
        add("text", { x, y: y + 4, "text-anchor": "middle", "font-size": 11, fill: "#fff", "font-weight": 700 }, c.card === "BACK" ? "#" + c.id : Cards.pretty(c.card));
        const carried = plural(c.chips.length, "chip") + (c.medicine.length ? " +" + c.medicine.length + "m" : "") + (c.radiation.length ? " " + c.radiation.length + "r" : "");
        add("text", { x, y: y + 29, "text-anchor": "middle", "font-size": 10, "font-weight": 600 }, carried);
      });
    }
    return h("section.card-panel.chart", svg, h("p.hint", "Dots are chosen, in their player's colour, with their own card; a red ring means radiation on it; m = medicine, r = radiation. The rings below show each card."));
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

      const vault = atTheVault(state);
      const rings = h("section.rings", ZONES.map(([zone, title]) => {
        const here = (state.mat || []).filter((c) => c.zone === zone);
        return h("div.ring." + zone.replace(" ", ""), { dataset: { zone } }, h("h3", title + " · " + (here.length ? here.length + " chosen" : "empty")),
          here.map((c) => chosenCard(c, colours, ctx)));
      }), h("div.ring.vault", { dataset: { zone: "vault" } }, h("h3", "Vault · " + (vault.length ? vault.length + " waiting" : "empty")),
        vault.map((c) => chosenCard(c, colours, ctx)),
        awaiting ? h("p.hint", "Chosen #" + awaiting.chosen + ": " + plural(awaiting.unseen_chips, "chip") + " the companion has not seen face up: turn "
          + (awaiting.unseen_chips === 1 ? "it" : "them") + " up for the verdict.") : null,
        (state.verdicts || []).length ? h("p.hint", "Verdicts, newest first:") : null,
        (state.verdicts || []).slice(-4).reverse().map((v) =>
        h("div.chosen-card", { style: Screens.colourStyle(colours, v.owner) },
          h("div.pile-head", Cards.el(v.card, "chosen-face"), h("span", h("strong", v.owner), " · chosen #" + v.chosen + " "),
            h("span.verdict." + (v.passed ? "win" : "lose"), v.passed ? "passed +" + v.points : "shot")),
          h("div.pile", v.chips.filter(Boolean).length ? h("span.pile-part", h("span.pile-label", "chips"), h("span.cards", v.chips.filter(Boolean).map((c) => Cards.el(c)))) : null),
          h("div.hint", v.reason + " · " + v.medicine + " medicine, " + v.radiated_chips + " radiated")))));

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
