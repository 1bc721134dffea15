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
    const suitLabel = (s) => s.map((x) => ({ H: "♥", D: "♦", S: "♠", C: "♣" })[x]).join(" ") + (s.every((x) => x === "H" || x === "D") ? " red" : s.every((x) => x === "S" || x === "C") ? " black" : "");
    div.innerHTML = `<input class="pname" placeholder="name" required maxlength="24" aria-label="player ${n} name">
      <input class="pcolour" type="color" aria-label="player ${n} colour">
      ${game === "chosen" ? `<input class="pteam" placeholder="team (optional)" title="players with the same team win together" maxlength="24" aria-label="player ${n} team (optional)">` : ""}
      ${suits ? `<select class="psuits" title="castle suits" aria-label="player ${n} castle suits">${suits.map((s) => `<option value="${s.join("")}" class="${s.every((x) => x === "H" || x === "D") ? "red" : "black"}">${suitLabel(s)}</option>`).join("")}</select>` : ""}
      <button type="button" class="secondary small remove" title="remove" aria-label="remove player ${n}">✕</button>`;
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
      item.append(code, entry.help[name] ? " — " + entry.help[name] : "");
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
      error.textContent = "Rule options are not JSON: " + e.message; error.hidden = false; return;
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
