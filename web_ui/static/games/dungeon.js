/* Guilds and Dungeon: cards left in the dungeon, the revealed card(s) and effective power, the doubling
   counter large and clear with why, committed total and verdict, and per player: guild, rest area in
   order, treasures, trophies, hand size, progress to each end condition. Built from DungeonEngine.view().
   Hands are secret: the screen shows hand sizes only, never hand contents. */
"use strict";
(() => {
  const GUILDS = [["S", "Swordsmen ♠"], ["D", "Mages ♦"], ["C", "Thieves ♣"], ["H", "Hearts ♥"]];
  const PHASES = { guilds: "Choosing guilds", redeal_four: "Redealing four cards", reveal: "Next: reveal a dungeon card", friend: "The enemy calls a friend: reveal one more card",
    prize: "A treasure: players contest for the prize", fight: "An enemy: players commit mercenaries to fight it", trap: "A trap: each player calls odd or even, then draws", over: "Game over" };

  function cards(list) {
    return list && list.length ? h("span.cards", list.map((c) => Cards.el(c))) : h("span.muted", "none");
  }

  function doubling(state) {
    const marker = state.marker;
    const battle = state.battlefield;
    const applied = battle && battle.multiplier && battle.multiplier.marker ? battle.multiplier : null;
    // The big number is what multiplies an enemy: the marker waiting for the next one, or, once used,
    // the factor this fight's enemy carries.
    const factor = marker ? marker.multiplier : applied ? applied.value : 1;
    return h("section.card-panel.doubling", { dataset: { multiplier: factor } },
      h("h2", "Doubling counter"),
      h("div.row", h("span.big-number", "×" + factor), marker ? Cards.el(marker.card) : applied ? Cards.el(applied.marker) : null,
        h("span.hint", marker ? " waiting for the next enemy" : applied ? " applied to this enemy" : " no marker")),
      h("p", marker ? marker.text : applied ? applied.text + "; the marker is used up." : "No marker waits: the next enemy fights at its printed level."),
      marker && applied ? h("p.hint", "This fight: " + applied.text) : null);
  }

  function battlefield(state, ctx) {
    const b = state.battlefield;
    if (!b) return h("section.card-panel", { dataset: { zone: "battlefield" } }, h("h2", "Battlefield"), h("p.hint", "Nothing revealed."));
    const enemy = b.enemy_power !== undefined && b.enemy_power !== null;
    const verdict = enemy && b.commits.length ? (state.options.ties_go_to_enemy ? b.players_total > b.enemy_power : b.players_total >= b.enemy_power) : null;
    return h("section.card-panel.battlefield", { dataset: { zone: "battlefield" } },
      h("h2", "Battlefield: " + b.kind),
      h("div.row.wrap", "revealed ", b.revealed ? Cards.el(b.revealed) : h("span.muted", "gone"), b.friends && b.friends.length ? [" friends ", cards(b.friends)] : null,
        b.extra_prizes && b.extra_prizes.length ? [" extra prize ", cards(b.extra_prizes)] : null),
      enemy ? h("div", h("span.big-number", String(b.enemy_power)), " enemy power") : null,
      enemy ? h("p.hint", b.enemy_power_text) : null,
      h("h3", "Committed"),
      b.commits.length ? h("ul", b.commits.map((c) => h("li", c.name + ": ", c.face_down ? Cards.el("BACK") : Cards.el(c.card), c.power !== null ? " power " + c.power : "", c.side !== "players" ? " (on the enemy's side)" : "", c.round > 1 ? " (round " + c.round + ")" : ""))) : h("p.hint", "nothing yet"),
      h("p", "Players' total ", h("strong", String(b.players_total)),
        enemy && b.commits.length ? [" vs ", h("strong", String(b.enemy_power)), " ", h("span.verdict." + (verdict ? "win" : "lose"), verdict ? "players hold" : "enemy holds")] : null),
      b.to_commit && b.to_commit.length ? h("p.hint", "still to commit: " + b.to_commit.join(", ")) : null,
      b.contenders ? h("p.hint", "in the contest: " + b.contenders.map((i) => state.players[i].name).join(", ")) : null,
      b.trap ? h("p", "Trap ", Cards.el(b.trap.card), " calls: " + Object.entries(b.trap.calls).map(([k, v]) => state.players[k].name + " " + v).join(", ") + " · drawn: " + (b.trap.drawn || []).map((i) => state.players[i] ? state.players[i].name : i).join(", ")) : null,
      ctx.isReferee() && (state.phase === "prize" || state.phase === "fight") ? h("div.row.wrap", h("button", { type: "button", onclick: () => ctx.send({ type: "resolve" }) }, "Resolve")) : null);
  }

  function lastVerdict(state) {
    const history = state.history || [];
    if (!history.length) return null;
    const last = history[history.length - 1];
    return h("section.card-panel", h("h2", "Last encounter (#" + last.encounter + ")"), h("p", Cards.el(last.card), " " + (last.outcome || last.how || last.kind)),
      last.winner !== null && last.winner !== undefined && state.players[last.winner] ? h("p.hint", "winner: " + state.players[last.winner].name) : null);
  }

  function playerPanel(state, p, ctx, colours) {
    const o = state.options;
    const turn = state.to_reveal === p.name;
    const actions = [];
    if (ctx.isReferee() && state.phase !== "over") {
      if (state.phase === "guilds" && !p.guild) {
        for (const [code, name] of GUILDS) actions.push(h("button.small.secondary", { type: "button", onclick: () => ctx.send({ type: "choose_guild", player: p.name, guild: code }) }, name));
      }
      if (state.phase === "prize" || state.phase === "fight") {
        actions.push(h("button.small", { type: "button", onclick: async () => {
          const card = await ctx.pick(p.name + " commits (face down: pick the back)");
          if (card) ctx.send(card === "BACK" ? { type: "commit", player: p.name } : { type: "commit", player: p.name, card });
        } }, "commit"));
        actions.push(h("button.small.secondary", { type: "button", onclick: async () => {
          const card = await ctx.pick(p.name + " turns up");
          if (card) ctx.send({ type: "turn_up", player: p.name, card });
        } }, "turn up"));
        actions.push(h("button.small.secondary", { type: "button", onclick: () => ctx.send({ type: "pass", player: p.name }) }, "pass"));
        if (state.phase === "prize") actions.push(h("button.small.secondary", { type: "button", onclick: () => ctx.send({ type: "assign", player: p.name }) }, "agreed: takes it"));
      }
      if (state.phase === "trap") {
        actions.push(h("button.small.secondary", { type: "button", onclick: () => ctx.send({ type: "trap_call", player: p.name, call: "odd" }) }, "calls odd"));
        actions.push(h("button.small.secondary", { type: "button", onclick: () => ctx.send({ type: "trap_call", player: p.name, call: "even" }) }, "calls even"));
        actions.push(h("button.small.secondary", { type: "button", onclick: async () => {
          const card = await ctx.pick(p.name + " draws");
          if (card) ctx.send({ type: "trap_draw", player: p.name, card });
        } }, "draws…"));
      }
      actions.push(h("button.small.secondary", { type: "button", onclick: () => {
        const count = Screens.askNumber("Cards in " + p.name + "'s hand?", p.hand_count);
        if (count !== null) ctx.send({ type: "correct_hand_size", player: p.name, count });
      } }, "hand size"));
    }
    return h("div.card-panel.player" + (turn ? ".turn" : "") + (p.out ? ".out" : ""), { style: Screens.colourStyle(colours, p.name), dataset: { player: p.name } },
      h("h3", p.name + (p.guild_name ? " · " + p.guild_name : " · no guild yet") + (p.out ? " (out)" : "") + (turn ? " ← reveals" : "")),
      h("div", "hand ", h("strong", String(p.hand_count)), " cards"),
      h("div", "rest area ", cards(p.rest_area), h("span.hint", " (oldest first, holds " + o.rest_area_size + ")")),
      h("div", "treasures ", cards(p.treasures)),
      h("div", "trophies ", cards(p.trophies)),
      Screens.progress(p.progress.high_trophies, p.progress.high_trophies_to_win, "trophies of level " + o.trophy_min_level + "+ (wins at " + o.trophies_to_win + ")"),
      Screens.progress(Math.max(0, p.progress.cards_above_out), Math.max(1, o.hand_size - o.out_at_hand_size), "cards above " + o.out_at_hand_size + " (out at " + o.out_at_hand_size + " or fewer)"),
      h("div.hint", p.progress.treasures + " treasure(s): most treasures wins when the dungeon is empty"),
      actions.length ? h("div.row.wrap", actions) : null);
  }

  Games.dungeon = {
    render(state, ctx) {
      const colours = Screens.playerColours(state);
      const result = state.result;
      const head = h("section.card-panel",
        result ? h("h2", (result.winner_names.length ? "Winner: " + result.winner_names.join(" and ") : "A draw") + " · " + result.text)
               : h("h2", PHASES[state.phase] || state.phase),
        h("div.row", h("span.big-number", String(state.dungeon_count)), h("span", " cards left in the dungeon · " + state.encounters + " encounter(s) done · exile " + state.exile.length)),
        state.to_reveal ? h("p", state.to_reveal + " reveals next") : null,
        ctx.isReferee() && (state.phase === "reveal" || state.phase === "friend") ? h("div.row.wrap",
          h("button", { type: "button", onclick: async () => {
            const card = await ctx.pick(state.phase === "friend" ? "The friend revealed" : "Card revealed from the dungeon");
            if (card) ctx.send({ type: "reveal", card });
          } }, state.phase === "friend" ? "Reveal the friend" : "Reveal a card"),
          state.dungeon_order_known ? h("button.secondary", { type: "button", onclick: () => ctx.send({ type: "reveal" }) }, "Reveal the known top card") : null) : null);
      return h("div", head, doubling(state), battlefield(state, ctx), lastVerdict(state),
        h("section.players", state.players.map((p) => playerPanel(state, p, ctx, colours))),
        h("section.card-panel", h("h2", "Exile"), cards(state.exile)),
        Screens.engineLog(state), Screens.rulings(state));
    },
    templates(state) {
      const first = state && state.players && state.players[0] ? state.players[0].name : 0;
      return [
        { label: "choose guild", event: { type: "choose_guild", player: first, guild: "S" } },
        { label: "reveal", event: { type: "reveal", card: "5S" } },
        { label: "commit", event: { type: "commit", player: first, card: "7S" } },
        { label: "pass", event: { type: "pass", player: first } },
        { label: "resolve", event: { type: "resolve" } },
        { label: "scroll", event: { type: "play_scroll", player: first, card: "QS", target: first } },
        { label: "trap call", event: { type: "trap_call", player: first, call: "odd" } },
        { label: "trade", event: { type: "trade", gives: {} } },
        { label: "hand size", event: { type: "correct_hand_size", player: first, count: 5 } },
      ];
    },
  };
})();
