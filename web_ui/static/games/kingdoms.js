/* Kingdoms: the grid as the table has it, each castle's score with its explanation on tap, round and
   total scores, castles left per player, and the chart of totals by round (drawn by the server). Built from KingdomsEngine.view().
   Cells are the engine's canvas cells [row, col]; explanations use the grid's own cells (grid_cell). */
"use strict";
(() => {
  let selected = null; // canvas cell "r,c" whose explanation is open

  function key(cell) { return cell[0] + "," + cell[1]; }

  /** Chosen colours first; otherwise a red kingdom is red and a black one is black. */
  function kingdomColours(state) {
    const colours = Screens.playerColours(state);
    const chosen = (state.session && state.session.colours) || {};
    for (const p of state.players || []) {
      if (chosen[p.name]) continue;
      if (p.suits.every((s) => s === "H" || s === "D")) colours[p.name] = "#dc2626";
      else if (p.suits.every((s) => s === "S" || s === "C")) colours[p.name] = "#1f2937";
    }
    return colours;
  }

  /** The cells to draw: the cards placed, one ring of the cells a card may still go to around them (for
      the referee), and any cell the camera asks about; never the whole canvas the grid may float in. */
  function windowOf(board, referee) {
    const cells = board.cells.map((c) => c.cell);
    const asked = (window.Questions ? Questions.open : []).map((q) => q.where && q.where.cell).filter(Boolean);
    if (!board.cells.length) {
      // Nothing placed yet: one 3 × 3 patch around the canvas centre; the first card may go anywhere.
      const mid = Math.ceil(board.canvas[0] / 2);
      cells.push([mid - 1, mid - 1], [mid + 1, mid + 1]);
    }
    const rows0 = cells.map((c) => c[0]), cols0 = cells.map((c) => c[1]);
    const box = { top: Math.min(...rows0), left: Math.min(...cols0), bottom: Math.max(...rows0), right: Math.max(...cols0) };
    if (referee && board.cells.length) {
      for (const [r, c] of board.open_cells) {
        if (r >= box.top - 1 && r <= box.bottom + 1 && c >= box.left - 1 && c <= box.right + 1) cells.push([r, c]);
      }
    }
    cells.push(...asked);
    const rows = cells.map((c) => c[0]), cols = cells.map((c) => c[1]);
    return { top: Math.min(...rows), left: Math.min(...cols), bottom: Math.max(...rows), right: Math.max(...cols) };
  }

  /** What a piece is called on the board: the names the rules use. */
  const ORIENTATIONS = { wide: N_("6 wide × 5 tall grid"), tall: N_("5 wide × 6 tall grid") };
  // The rule sets by what a player calls them (the option's value, "poker" or "knizia", is the code).
  const RULE_SETS = { poker: N_("the seed's poker-card rules"), knizia: N_("the boxed game's rules (Knizia)") };
  const PIECES = { dragon: N_("dragon"), gold_mine: N_("gold mine"), mountain: N_("mountain"), wizard: N_("wizard") };
  function pieceName(tile) {
    const piece = tile.piece || {};
    if (tile.face_down) return _("face down");
    if (PIECES[piece.kind]) return _(PIECES[piece.kind]);
    return piece.kind === "castle" ? _("castle X%(rank)s", { rank: piece.rank }) : null;
  }
  /** A castle's or tile's explanation: the engine's lines (messages), or older plain text. */
  function explanation(text) {
    if (Array.isArray(text)) return text.map((line) => I18n.render(line));
    if (text && typeof text === "object") return [I18n.render(text)];
    return String(text || "").split("; ");
  }

  function castleScores(state, board) {
    // scores.castles use grid cells; map them back to canvas cells through the board's origin.
    const [top, left] = board.origin;
    const byCell = {};
    const castles = (state.scores && state.scores.castles) || [];
    const texts = (state.explanations && state.explanations.castles) || [];
    castles.forEach((c, i) => { byCell[key([c.cell[0] + top - 1, c.cell[1] + left - 1])] = { ...c, text: texts[i] || [] }; });
    return byCell;
  }

  function tileNotes(state, board) {
    const [top, left] = board.origin;
    const notes = {};
    for (const t of (state.explanations && state.explanations.tiles) || []) notes[key([t.cell[0] + top - 1, t.cell[1] + left - 1])] = t;
    return notes;
  }

  function renderGrid(state, ctx, board) {
    const referee = ctx.isReferee() && !state.finished;
    const w = windowOf(board, referee);
    const open = new Set(board.open_cells.map(key));
    const occupied = {};
    for (const c of board.cells) occupied[key(c.cell)] = c;
    const scores = castleScores(state, board);
    const colours = kingdomColours(state);
    const grid = h("div.kgrid", { style: "--cols:" + (w.right - w.left + 1) + "; grid-template-columns: repeat(" + (w.right - w.left + 1) + ", minmax(0, 1fr))" });
    for (let r = w.top; r <= w.bottom; r++) {
      for (let c = w.left; c <= w.right; c++) {
        const k = key([r, c]);
        const tile = occupied[k];
        const castle = scores[k];
        const canPlace = referee && (board.cells.length === 0 || open.has(k));
        const name = tile ? pieceName(tile) : null;
        const described = !tile ? null : !name || tile.face_down ? Cards.name(tile.face_down ? "BACK" : tile.code)
          : tile.piece.owner ? _("%(card)s, %(piece)s of %(owner)s", { card: Cards.name(tile.code), piece: name, owner: tile.piece.owner })
          : _("%(card)s, %(piece)s", { card: Cards.name(tile.code), piece: name });
        const cell = h("button.kcell", { type: "button", dataset: { cell: k }, title: _("cell %(cell)s", { cell: k }),
          "aria-label": tile ? described : canPlace ? _("empty cell %(cell)s: place a card", { cell: k }) : _("cell %(cell)s", { cell: k }),
          onclick: () => tap(state, ctx, [r, c]) });
        if (tile) {
          cell.append(Cards.el(tile.face_down ? "BACK" : tile.code));
          if (name) cell.append(h("span.piece", { "aria-hidden": "true" }, name));
          if (tile.piece && tile.piece.kind === "castle") {
            cell.classList.add("castle");
            if (colours[tile.piece.owner]) cell.style.setProperty("--pcolour", colours[tile.piece.owner]);
          }
          if (castle) cell.append(h("span.score" + (castle.total < 0 ? ".neg" : ""), String(castle.total)));
        } else if (canPlace) {
          cell.classList.add("empty");
        } else {
          cell.classList.add("void");
          cell.disabled = !referee;
          cell.style.visibility = board.cells.length ? "hidden" : "visible";
        }
        if (selected === k) cell.classList.add("selected");
        grid.append(cell);
      }
    }
    return grid;
  }

  async function tap(state, ctx, cell) {
    const k = key(cell);
    const tile = state.board.cells.find((c) => key(c.cell) === k);
    if (!tile) {
      if (!ctx.isReferee() || state.finished) return;
      const card = await ctx.pick(_("Card placed at %(cell)s", { cell: k }));
      if (card) ctx.send({ type: "place", cell, card });
      return;
    }
    selected = selected === k ? null : k;
    ctx.rerender();
  }

  function detail(state, ctx) {
    if (!selected) return null;
    const board = state.board;
    const tile = board.cells.find((c) => key(c.cell) === selected);
    if (!tile) { selected = null; return null; }
    const castle = castleScores(state, board)[selected];
    const note = tileNotes(state, board)[selected];
    const cell = tile.cell;
    const lines = castle ? explanation(castle.text) : note ? explanation(note.text) : [tile.code];
    const where = tile.grid_cell.join(",");
    const panel = h("section.card-panel.detail", { dataset: { detail: selected } },
      h("h2", Cards.el(tile.face_down ? "BACK" : tile.code), " ", castle ? _("at grid cell %(cell)s: %(points)s points", { cell: where, points: castle.total }) : _("at grid cell %(cell)s", { cell: where })),
      castle ? h("p", _("row %(row)s + column %(column)s = %(sum)s, × rank %(rank)s", { row: castle.row, column: castle.column, sum: castle.row + castle.column, rank: castle.rank })) : null,
      h("ul.explain", lines.map((line) => h("li", line))),
      tile.placed_by ? h("p.hint", tile.face_down && tile.card ? _("placed by %(player)s · face down (%(card)s)", { player: tile.placed_by, card: tile.card }) : _("placed by %(player)s", { player: tile.placed_by })) : null);
    if (ctx.isReferee() && !state.finished) {
      panel.append(h("div.row.wrap",
        h("button.secondary", { type: "button", onclick: async () => {
          const card = await ctx.pick(_("Correct the card at %(cell)s", { cell: selected }), { allowClear: true });
          if (card === "") ctx.send({ type: "remove", cell });
          else if (card) ctx.send({ type: "replace", cell, card });
        } }, _("Correct card")),
        h("button.secondary", { type: "button", onclick: () => ctx.send({ type: "remove", cell }) }, _("Remove")),
        !tile.face_down ? h("button.secondary", { type: "button", onclick: () => ctx.send({ type: "turn_down", cell }) }, _("Turn face down")) : null));
    }
    return panel;
  }

  /** Between rounds the table is empty: the grid of the round just scored, castle scores on it. */
  function scoredGrid(state, ctx) {
    const last = (state.results || [])[state.results.length - 1];
    if (!last || !last.rows.length) return null;
    const colours = kingdomColours(state);
    const texts = (last.explanations && last.explanations.castles) || [];
    const byCell = {};
    last.castles.forEach((c, i) => { byCell[key(c.cell)] = { ...c, text: texts[i] || [] }; });
    const grid = h("div.kgrid.final", { style: "--cols:" + last.rows[0].length + "; grid-template-columns: repeat(" + last.rows[0].length + ", minmax(0, 1fr))" });
    last.rows.forEach((row, r) => row.forEach((code, c) => {
      const k = key([r + 1, c + 1]);
      const castle = byCell[k];
      grid.append(h("button.kcell" + (castle ? ".castle" : ""), { type: "button", dataset: { cell: k }, style: castle ? Screens.colourStyle(colours, castle.owner) : null, onclick: () => { selected = "final:" + k; ctx.rerender(); } },
        code ? Cards.el(code) : null, castle ? h("span.score" + (castle.total < 0 ? ".neg" : ""), String(castle.total)) : null));
    }));
    const chosen = selected && selected.startsWith("final:") ? byCell[selected.slice(6)] : null;
    return h("section.card-panel", h("h2", _("Round %(n)s as scored", { n: last.round })), grid,
      chosen ? h("ul.explain", explanation(chosen.text).map((line) => h("li", line))) : h("p.hint", _("Tap a castle for its score explained.")));
  }

  /** The totals by round: the server's chart (the result page's own), keyed by the scored rounds. */
  function chart(state) {
    const players = state.players || [];
    return Screens.scoreChart(_("Totals by round"), JSON.stringify(state.round_scores || []),
      _("total score by round") + ": " + Screens.scoresSaid(players.map((p) => [p.name, p.total])));
  }

  function scoreTable(state) {
    const rounds = state.rounds || 3;
    const playing = !state.finished;
    // Between rounds "scores" is the round just scored, not the one now starting.
    const provisional = state.scores_of && state.scores_of.final ? {} : (state.scores && state.scores.totals) || {};
    const head = h("tr", h("th", _("Player")), Array.from({ length: rounds }, (_unused, i) => h("th", _("R%(n)s", { n: i + 1 }))), h("th", _("Total")));
    const rows = (state.players || []).map((p) => h("tr", { dataset: { player: p.name } }, h("td", p.name),
      Array.from({ length: rounds }, (_unused, i) => {
        if (i < p.round_scores.length) return h("td", String(p.round_scores[i]));
        if (playing && i === state.round - 1 && p.name in provisional) return h("td.muted", { title: _("as the board stands now") }, "(" + provisional[p.name] + ")");
        return h("td.muted", "–");
      }),
      h("td", h("strong", String(p.total)))));
    const bracketed = playing && Object.keys(provisional).length;
    return h("div", h("table.scores", h("thead", head), h("tbody", rows)),
      bracketed ? h("p.hint", _("(n): this round as the board stands now; it counts once the round is scored.")) : null);
  }

  function castleList(state, ctx) {
    const castles = (state.scores && state.scores.castles) || [];
    if (!castles.length || !state.board.cells.length) return null;
    const board = state.board;
    const [top, left] = board.origin;
    return h("details.card-panel", { open: true }, h("summary", _("Castle scores this round (tap for why)")),
      h("table.scores", h("thead", h("tr", h("th", _("Castle")), h("th", _("Row")), h("th", _("Col")), h("th", "×"), h("th", _("Total")))),
        h("tbody", castles.map((c) => {
          const canvas = key([c.cell[0] + top - 1, c.cell[1] + left - 1]);
          const tile = board.cells.find((t) => key(t.cell) === canvas);
          return h("tr", { onclick: () => { selected = canvas; ctx.rerender(); }, dataset: { castle: canvas } },
            h("td", tile ? Cards.el(tile.code) : "", " " + c.owner + " @" + c.cell.join(",")), h("td", String(c.row)), h("td", String(c.column)), h("td", String(c.rank)), h("td", h("strong", String(c.total))));
        }))));
  }

  function supplies(state) {
    const colours = kingdomColours(state);
    return h("section.players", (state.players || []).map((p) => h("div.card-panel.player" + (p.name === state.to_act ? ".turn" : ""), { style: Screens.colourStyle(colours, p.name), dataset: { player: p.name } },
      h("h3", p.name + " ", p.suits.map((s) => h("span.suit" + (s === "H" || s === "D" ? ".red" : ""), Cards.SYMBOL[s] + " "))),
      h("div", _("Castles left:"), ["1", "2", "3", "4"].map((rank) => h("span.supply", " ", _("X%(rank)s ×%(n)s", { rank, n: p.supply[rank] ?? 0 })))),
      h("div", _("Total"), " ", h("strong", String(p.total))))));
  }

  Games.kingdoms = {
    render(state, ctx) {
      const board = state.board;
      const banner = state.finished
        ? h("h2", state.winners && state.winners.length > 1 ? _("Winner: %(players)s share the win", { players: I18n.list(state.winners) }) : _("Winner: %(players)s wins", { players: I18n.list(state.winners || []) }))
        : h("h2", _("Round %(round)s of %(rounds)s · %(filled)s/30 cards · %(player)s to play", { round: state.round, rounds: state.rounds, filled: board.filled, player: state.to_act || "" }));
      const warnings = ((state.scores && state.scores.warnings) || []).map((w) => h("p.hint", I18n.render(w)));
      const betweenRounds = state.scores_of && state.scores_of.final && !board.cells.length;
      // Whose turn is said once, in the banner; the referee may correct it from a labelled list.
      const others = (state.players || []).filter((p) => p.name !== state.to_act);
      const turnSelect = h("select#turn-fix", { "aria-label": _("correct whose turn it is") },
        h("option", { value: "" }, _("Correct whose turn it is…")), others.map((p) => h("option", { value: p.name }, _("%(player)s plays next", { player: p.name }))));
      turnSelect.addEventListener("change", () => { if (turnSelect.value) ctx.send({ type: "set_turn", player: turnSelect.value }); });
      const refereeActions = ctx.isReferee() && !state.finished ? h("div.row.wrap",
        board.full ? h("button", { type: "button", onclick: () => ctx.send({ type: "score_round" }) }, _("Score the round")) : null,
        others.length ? turnSelect : null) : null;
      return h("div",
        h("section.card-panel", banner, h("p.hint", [board.orientation ? _(ORIENTATIONS[board.orientation] || board.orientation) : null,
          _("rules: %(rules)s", { rules: state.options && _(RULE_SETS[state.options.rules] || state.options.rules) }),
          board.territory_left !== undefined ? _("territory cards left: %(n)s", { n: board.territory_left }) : null].filter(Boolean).join(" · ")), refereeActions),
        betweenRounds ? scoredGrid(state, ctx) : null,
        state.finished ? null : !board.cells.length && !ctx.isReferee() ? h("p.card-panel.hint", _("Round %(n)s: no card on the table yet.", { n: state.round })) : renderGrid(state, ctx, board), detail(state, ctx), betweenRounds ? null : warnings,
        h("section.card-panel", h("h2", _("Scores")), scoreTable(state)),
        castleList(state, ctx), supplies(state), chart(state), Screens.rulings(state));
    },
    templates(state) {
      const first = state && state.board && state.board.cells[0];
      const cell = first ? first.cell : [6, 6];
      return [
        { label: _("place"), event: { type: "place", cell, card: "5H" } },
        { label: _("replace"), event: { type: "replace", cell, card: "5D" } },
        { label: _("remove"), event: { type: "remove", cell } },
        { label: _("turn down"), event: { type: "turn_down", cell } },
        { label: _("score round"), event: { type: "score_round" } },
        { label: _("set turn"), event: { type: "set_turn", player: state && state.players ? state.players[0].name : "" } },
      ];
    },
  };
})();
