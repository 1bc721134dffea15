/* Guilds and Dungeon: cards left in the dungeon, the revealed card(s) and effective power, the doubling
   counter large and clear with why, committed total and verdict, and per player: guild, rest area in
   order, treasures, trophies, hand size, progress to each end condition. Built from DungeonEngine.view().
   Hands are secret: the screen shows hand sizes only, never hand contents. */
"use strict";
(() => {
  const GUILDS = [["S", N_("Swordsmen ♠")], ["D", N_("Mages ♦")], ["C", N_("Thieves ♣")], ["H", N_("fourth guild ♥")]];
  const PHASES = { guilds: N_("Choosing guilds"), redeal_four: N_("Redealing four cards"), reveal: N_("Next: reveal a dungeon card"), friend: N_("The enemy calls a friend: reveal one more card"),
    prize: N_("A treasure: players contest for the prize"), fight: N_("An enemy: players commit mercenaries to fight it"), trap: N_("A trap: each player calls odd or even, then draws"), over: N_("Game over") };
  const KINDS = { treasure: N_("treasure"), scroll: N_("magic scroll"), mercenary: N_("enemy"), trap: N_("trap") };
  const kindName = (kind) => (KINDS[kind] ? _(KINDS[kind]) : kind);

  function cards(list) {
    return list && list.length ? h("span.cards", list.map((c) => Cards.el(c))) : h("span.muted", _("none"));
  }

  function doubling(state) {
    const marker = state.marker;
    const battle = state.battlefield;
    const applied = battle && battle.multiplier && battle.multiplier.marker ? battle.multiplier : null;
    // The big number is what multiplies an enemy: the marker waiting for the next one, or, once used,
    // the factor this fight's enemy carries.
    const factor = marker ? marker.multiplier : applied ? applied.value : 1;
    return h("section.card-panel.doubling", { dataset: { multiplier: factor } },
      h("h2", _("Doubling counter")),
      h("div.row", h("span.big-number", "×" + factor), marker ? Cards.el(marker.card) : applied ? Cards.el(applied.marker) : null,
        h("span.hint", " ", marker ? _("waiting for the next enemy") : applied ? _("applied to this enemy") : _("no marker"))),
      h("p", marker ? I18n.render(marker.text) : applied ? _("%(how)s; the marker is used up.", { how: I18n.render(applied.text) }) : _("No marker waits: the next enemy fights at its printed level.")),
      marker && applied ? h("p.hint", _("This fight: %(how)s", { how: I18n.render(applied.text) })) : null);
  }

  function battlefield(state, ctx) {
    const b = state.battlefield;
    if (!b) return h("section.card-panel", { dataset: { zone: "battlefield" } }, h("h2", _("Battlefield")), h("p.hint", _("Nothing revealed.")));
    const enemy = b.enemy_power !== undefined && b.enemy_power !== null;
    const verdict = enemy && b.commits.length ? (state.options.ties_go_to_enemy ? b.players_total > b.enemy_power : b.players_total >= b.enemy_power) : null;
    return h("section.card-panel.battlefield", { dataset: { zone: "battlefield" } },
      h("h2", _("Battlefield: %(kind)s", { kind: kindName(b.kind) })),
      h("div.row.wrap", _("revealed"), " ", b.revealed ? Cards.el(b.revealed) : h("span.muted", _("gone")), b.friends && b.friends.length ? [" ", _("friends"), " ", cards(b.friends)] : null,
        b.extra_prizes && b.extra_prizes.length ? [" ", _("extra prize"), " ", cards(b.extra_prizes)] : null),
      enemy ? h("div", h("span.big-number", String(b.enemy_power)), " ", _("enemy power")) : null,
      enemy ? h("p.hint", I18n.render(b.enemy_power_text)) : null,
      h("h3", _("Committed")),
      b.commits.length ? h("ul", b.commits.map((c) => h("li", _("%(player)s: ", { player: c.name }), c.face_down ? Cards.el("BACK") : Cards.el(c.card),
        c.power !== null ? " " + _("power %(n)s", { n: c.power }) : "", c.side !== "players" ? " " + _("(on the enemy's side)") : "", c.round > 1 ? " " + _("(round %(n)s)", { n: c.round }) : ""))) : h("p.hint", _("nothing yet")),
      h("p", _("Players' total"), " ", h("strong", String(b.players_total)),
        enemy && b.commits.length ? [" ", _("vs"), " ", h("strong", String(b.enemy_power)), " ", h("span.verdict." + (verdict ? "win" : "lose"), verdict ? _("players hold") : _("enemy holds"))] : null),
      b.to_commit && b.to_commit.length ? h("p.hint", _("still to commit: %(players)s", { players: I18n.list(b.to_commit) })) : null,
      b.contenders ? h("p.hint", _("in the contest: %(players)s", { players: I18n.list(b.contenders.map((i) => state.players[i].name)) })) : null,
      b.trap ? h("p", _("Trap"), " ", Cards.el(b.trap.card), " ", _("calls: %(calls)s · drawn: %(drawn)s", {
        calls: I18n.list(Object.entries(b.trap.calls).map(([k, v]) => state.players[k].name + " " + Screens.parity(v))),
        drawn: I18n.list((b.trap.drawn || []).map((i) => state.players[i] ? state.players[i].name : i)) })) : null,
      ctx.isReferee() && (state.phase === "prize" || state.phase === "fight") ? h("div.row.wrap", h("button", { type: "button", onclick: () => ctx.send({ type: "resolve" }) }, _("Resolve"))) : null);
  }

  function lastVerdict(state) {
    const history = state.history || [];
    if (!history.length) return null;
    const last = history[history.length - 1];
    return h("section.card-panel", h("h2", _("Last encounter (#%(n)s)", { n: last.encounter })), h("p", Cards.el(last.card), " ", last.outcome ? I18n.render(last.outcome) : kindName(last.kind)),
      last.winner !== null && last.winner !== undefined && state.players[last.winner] ? h("p.hint", _("winner: %(player)s", { player: state.players[last.winner].name })) : null);
  }

  function playerPanel(state, p, ctx, colours) {
    const o = state.options;
    const turn = state.to_reveal === p.name;
    const actions = [];
    if (ctx.isReferee() && state.phase !== "over") {
      if (state.phase === "guilds" && !p.guild) {
        for (const [code, name] of GUILDS) actions.push(h("button.small.secondary", { type: "button", onclick: () => ctx.send({ type: "choose_guild", player: p.name, guild: code }) }, _(name)));
      }
      if (state.phase === "prize" || state.phase === "fight") {
        actions.push(h("button.small", { type: "button", onclick: async () => {
          const card = await ctx.pick(_("%(player)s commits (face down: pick the back)", { player: p.name }));
          if (card) ctx.send(card === "BACK" ? { type: "commit", player: p.name } : { type: "commit", player: p.name, card });
        } }, _("commit")));
        actions.push(h("button.small.secondary", { type: "button", onclick: async () => {
          const card = await ctx.pick(_("%(player)s turns up", { player: p.name }));
          if (card) ctx.send({ type: "turn_up", player: p.name, card });
        } }, _("turn up")));
        actions.push(h("button.small.secondary", { type: "button", onclick: () => ctx.send({ type: "pass", player: p.name }) }, _("pass")));
        if (state.phase === "prize") actions.push(h("button.small.secondary", { type: "button", onclick: () => ctx.send({ type: "assign", player: p.name }) }, _("agreed: takes it")));
      }
      if (state.phase === "trap") {
        actions.push(h("button.small.secondary", { type: "button", onclick: () => ctx.send({ type: "trap_call", player: p.name, call: "odd" }) }, _("calls odd")));
        actions.push(h("button.small.secondary", { type: "button", onclick: () => ctx.send({ type: "trap_call", player: p.name, call: "even" }) }, _("calls even")));
        actions.push(h("button.small.secondary", { type: "button", onclick: async () => {
          const card = await ctx.pick(_("%(player)s draws", { player: p.name }));
          if (card) ctx.send({ type: "trap_draw", player: p.name, card });
        } }, _("draws…")));
      }
      actions.push(h("button.small.secondary", { type: "button", onclick: () => {
        const count = Screens.askNumber(_("Cards in %(player)s's hand?", { player: p.name }), p.hand_count);
        if (count !== null) ctx.send({ type: "correct_hand_size", player: p.name, count });
      } }, _("hand size")));
    }
    return h("div.card-panel.player" + (turn ? ".turn" : "") + (p.out ? ".out" : ""), { style: Screens.colourStyle(colours, p.name), dataset: { player: p.name } },
      h("h3", p.name, " · ", p.guild_name ? I18n.render(p.guild_name) : _("no guild yet"), p.out ? " " + _("(out)") : "", turn ? " " + _("← reveals") : ""),
      h("div", ngettext("hand: %(n)d card", "hand: %(n)d cards", p.hand_count)),
      h("div", _("rest area"), " ", cards(p.rest_area), h("span.hint", " ", _("(oldest first, holds %(n)s)", { n: o.rest_area_size }))),
      h("div", _("warehouse: treasures"), " ", cards(p.treasures)),
      h("div", _("warehouse: trophies"), " ", cards(p.trophies)),
      Screens.progress(p.progress.high_trophies, p.progress.high_trophies_to_win, _("trophies of level %(level)s+ (wins at %(n)s)", { level: o.trophy_min_level, n: o.trophies_to_win })),
      Screens.progress(Math.max(0, p.progress.cards_above_out), Math.max(1, o.hand_size - o.out_at_hand_size), _("cards above %(n)s (out at %(n)s or fewer)", { n: o.out_at_hand_size })),
      h("div.hint", ngettext("%(n)d treasure: most treasures wins when the dungeon is empty", "%(n)d treasures: most treasures wins when the dungeon is empty", p.progress.treasures)),
      actions.length ? h("div.row.wrap", actions) : null);
  }

  Games.dungeon = {
    render(state, ctx) {
      const colours = Screens.playerColours(state);
      const result = state.result;
      const head = h("section.card-panel",
        result ? h("h2", (result.winner_names.length ? _("Winner: %(players)s", { players: I18n.list(result.winner_names) }) : _("A draw")) + " · " + I18n.render(result.text))
               : h("h2", PHASES[state.phase] ? _(PHASES[state.phase]) : state.phase),
        h("div.row", h("span.big-number", String(state.dungeon_count)), h("span", " ", _("cards left in the dungeon · %(encounters)s encounters done · %(exiled)s exiled", { encounters: state.encounters, exiled: state.exile.length }))),
        state.to_reveal ? h("p", _("%(player)s reveals next", { player: state.to_reveal })) : null,
        ctx.isReferee() && (state.phase === "reveal" || state.phase === "friend") ? h("div.row.wrap",
          h("button", { type: "button", onclick: async () => {
            const card = await ctx.pick(state.phase === "friend" ? _("The friend revealed") : _("Card revealed from the dungeon"));
            if (card) ctx.send({ type: "reveal", card });
          } }, state.phase === "friend" ? _("Reveal the friend") : _("Reveal a card")),
          state.dungeon_order_known ? h("button.secondary", { type: "button", onclick: () => ctx.send({ type: "reveal" }) }, _("Reveal the known top card")) : null) : null);
      return h("div", head, doubling(state), battlefield(state, ctx), lastVerdict(state),
        h("section.players", state.players.map((p) => playerPanel(state, p, ctx, colours))),
        h("section.card-panel", h("h2", _("Exile")), cards(state.exile)),
        Screens.scoreChart(_("Treasures by encounter"), state.encounters + ":" + state.players.map((p) => p.treasures.length).join(","),
          _("Treasures by encounter") + ": " + Screens.scoresSaid(state.players.map((p) => [p.name, p.treasures.length]))),
        Screens.engineLog(state), Screens.rulings(state));
    },
    templates(state) {
      const first = state && state.players && state.players[0] ? state.players[0].name : 0;
      return [
        { label: _("choose guild"), event: { type: "choose_guild", player: first, guild: "S" } },
        { label: _("reveal"), event: { type: "reveal", card: "5S" } },
        { label: _("commit"), event: { type: "commit", player: first, card: "7S" } },
        { label: _("pass"), event: { type: "pass", player: first } },
        { label: _("resolve"), event: { type: "resolve" } },
        { label: _("scroll"), event: { type: "play_scroll", player: first, card: "QS", target: first } },
        { label: _("trap call"), event: { type: "trap_call", player: first, call: "odd" } },
        { label: _("trade"), event: { type: "trade", gives: {} } },
        { label: _("hand size"), event: { type: "correct_hand_size", player: first, count: 5 } },
      ];
    },
  };
})();
