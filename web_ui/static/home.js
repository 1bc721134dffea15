/* Start page: build the players list for the chosen game and create the table. */
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const SUIT_CHOICES = {
    kingdoms: [["H", "D"], ["S", "C"], ["H"], ["D"], ["S"], ["C"]],
  };
  const DEFAULT_PLAYERS = { kingdoms: 2, dungeon: 3, chosen: 3 };
  const COLOURS = ["#dc2626", "#1f2937", "#2563eb", "#ca8a04", "#16a34a", "#9333ea", "#ea580c", "#0891b2"];

  function row(index) {
    const game = $("game").value;
    const suits = SUIT_CHOICES[game];
    const defaultSuits = game === "kingdoms" ? (index === 0 ? "HD" : index === 1 ? "SC" : "") : "";
    const div = document.createElement("div");
    div.className = "player-row";
    const n = index + 1;
    // Red suits read red: the option, and the list itself while a red choice is selected.
    const symbols = (s) => s.map((x) => ({ H: "♥", D: "♦", S: "♠", C: "♣" })[x]).join(" ");
    const suitLabel = (s) => s.every((x) => x === "H" || x === "D") ? _("%(suits)s red", { suits: symbols(s) })
      : s.every((x) => x === "S" || x === "C") ? _("%(suits)s black", { suits: symbols(s) }) : symbols(s);
    const field = (tag, attrs) => h(tag, attrs);
    // (a field this game does not have is null: left out, not written as the text "null")
    div.append(...[
      field("input.pname", { placeholder: _("name"), required: true, maxlength: 24, "aria-label": _("player %(n)s name", { n }) }),
      field("input.pcolour", { type: "color", "aria-label": _("player %(n)s colour", { n }) }),
      game === "chosen" ? field("input.pteam", { placeholder: _("team (optional)"), title: _("players with the same team win together"), maxlength: 24, "aria-label": _("player %(n)s team (optional)", { n }) }) : null,
      suits ? h("select.psuits", { title: _("castle suits"), "aria-label": _("player %(n)s castle suits", { n }) },
        suits.map((s) => h("option." + (s.every((x) => x === "H" || x === "D") ? "red" : "black"), { value: s.join("") }, suitLabel(s)))) : null,
      h("button.secondary.small.remove", { type: "button", title: _("remove"), "aria-label": _("remove player %(n)s", { n }) }, "✕")].filter(Boolean));
    div.querySelector(".pname").value = ["Ann", "Bo", "Cy", "Di", "Ed", "Fay", "Gus", "Hal"][index] || "";
    div.querySelector(".pcolour").value = COLOURS[index % COLOURS.length];
    if (suits && defaultSuits) div.querySelector(".psuits").value = defaultSuits;
    const select = div.querySelector(".psuits");
    if (select) {
      const tint = () => { select.classList.toggle("red", /^[HD]+$/.test(select.value)); };
      select.addEventListener("change", tint);
      tint();
    }
    div.querySelector(".remove").addEventListener("click", () => div.remove());
    return div;
  }

  function resetPlayers() {
    const rows = $("player-rows");
    rows.replaceChildren();
    const count = DEFAULT_PLAYERS[$("game").value] || 2;
    for (let i = 0; i < count; i++) rows.append(row(i));
    if ($("game").value === "kingdoms" && count === 2) {
      // 2 players: the red and the black kingdom.
    }
  }

  let catalogue = [];
  function showOptions() {
    const entry = catalogue.find((g) => g.name === $("game").value);
    const list = $("option-help");
    list.replaceChildren();
    if (!entry) return;
    for (const [name, value] of Object.entries(entry.options)) {
      const item = document.createElement("li");
      const code = document.createElement("code");
      code.textContent = name + ": " + JSON.stringify(value);
      item.append(code, entry.help[name] ? " — " + I18n.render(entry.help[name]) : "");
      list.append(item);
    }
  }
  fetch("/api/games").then((r) => r.json()).then((data) => { catalogue = data.catalogue || []; showOptions(); }, () => {});

  $("game").addEventListener("change", () => { resetPlayers(); showOptions(); });
  $("add-player").addEventListener("click", () => $("player-rows").append(row($("player-rows").children.length)));
  resetPlayers();

  $("create-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const error = $("create-error");
    error.hidden = true;
    let options;
    try { options = JSON.parse($("options").value || "{}"); } catch (e) {
      error.textContent = _("Rule options are not JSON: %(error)s", { error: e.message }); error.hidden = false; return;
    }
    const players = [...document.querySelectorAll(".player-row")].map((r) => {
      const p = { name: r.querySelector(".pname").value.trim(), colour: r.querySelector(".pcolour").value };
      const suits = r.querySelector(".psuits");
      if (suits) p.suits = suits.value.split("");
      const team = r.querySelector(".pteam");
      if (team && team.value.trim()) p.team = team.value.trim();
      return p;
    });
    const body = { game: $("game").value, players, options };
    // The deck its camera reads with: left out for the server's default, null for none, else a learned deck.
    const deck = $("deck") ? JSON.parse($("deck").value) : { server_default: true };
    if (!deck.server_default) body.deck = deck.deck;
    const response = await fetch("/api/tables", {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    const data = await response.json().catch(() => ({}));
    if (!response.ok) { error.textContent = data.error || response.statusText; error.hidden = false; return; }
    // The referee token (not the PIN) is this phone's referee key: it is never locked out by wrong PINs.
    localStorage.setItem("companion-pin:" + data.id, data.referee_token || data.pin);
    sessionStorage.setItem("companion-new:" + data.id, data.pin);
    location.href = new URL(data.join_url).pathname;
  });
})();
