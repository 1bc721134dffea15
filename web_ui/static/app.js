/* The table screen: state from the API, live changes over server-sent events, referee controls. */
"use strict";
(() => {
  const root = document.getElementById("app");
  const tableId = root.dataset.table;
  const game = root.dataset.game;
  const apiUrl = root.dataset.api;
  const streamUrl = root.dataset.stream;
  const pinKey = "companion-pin:" + tableId;
  const $ = (id) => document.getElementById(id);

  let state = null;
  let seq = -1;
  // The referee's key on this phone: the referee token (from the referee link, #ref=…) or the PIN.
  let pin = localStorage.getItem(pinKey);
  const fragment = new URLSearchParams(location.hash.slice(1));
  if (fragment.get("ref")) {
    pin = fragment.get("ref");
    localStorage.setItem(pinKey, pin);
    history.replaceState(null, "", location.pathname + location.search); // the token leaves the address bar
  }
  let source = null;
  let reconnectTimer = null;
  let deckPanel = null;   // deck.js: the Deck panel, told of every state
  const seen = new Set();

  // -- messages -------------------------------------------------------------------------------
  let messageTimer = null;
  function say(text, kind) {
    const box = $("message");
    box.textContent = text;
    box.className = "message " + (kind || "info");
    box.hidden = !text;
    clearTimeout(messageTimer);
    if (text && kind !== "error") messageTimer = setTimeout(() => { box.hidden = true; }, 4000);
  }

  // -- rendering --------------------------------------------------------------------------------
  function screen() { return Games[game] || Games.generic; }

  function describe(entry) {
    if (entry.kind === "undo") return _("undid the last change");
    if (entry.kind === "redo") return _("redid it");
    if (entry.kind === "deck") {
      const e = entry.event || {};
      return e.server_default ? _("the camera reads with the server's default deck") : e.deck ? _("the camera reads with the deck %(deck)s", { deck: e.deck }) : _("the camera reads with the general models (no deck)");
    }
    return Screens.describeEvent(entry.event || {});
  }
  // Who made a change, as the Log says it (the journal's source field).
  const SOURCES = { referee: N_("referee"), camera: N_("camera"), engine: N_("engine") };

  function addLog(entry) {
    if (seen.has(entry.seq)) return;
    seen.add(entry.seq);
    const item = h("li", { value: entry.seq, dataset: { seq: entry.seq } },
      h("span.who." + entry.source, _("%(who)s:", { who: _(SOURCES[entry.source || "referee"] || entry.source) })), " ", describe(entry));
    item.title = _("change %(n)s", { n: entry.seq });
    $("log").prepend(item);
    while ($("log").children.length > 200) $("log").lastChild.remove();
  }

  function render() {
    if (!state) return;
    const board = $("board");
    const view = screen();
    let node;
    try {
      node = view.render(state, ctx);
    } catch (error) {
      console.error(error);
      node = h("div", h("p.error", _("This screen could not draw the table: %(error)s", { error: error.message })), Games.generic.render(state, ctx));
    }
    if (window.Questions) {
      const asks = Questions.decorate(node); // each open camera question marked where it applies
      if (asks) node.prepend(asks);
    }
    const details = Games.generic.details(state);
    const open = board.querySelector("details.engine-details")?.open;
    details.open = !!open;
    board.replaceChildren(node, details);
    const session = state.session || {};
    // A finished game is read-only: no move entry (the screens ask mayEnterMoves), its result one tap away;
    // the referee's Undo stays, to correct the last change (that reopens the game).
    $("finished-note").hidden = !session.finished;
    document.body.classList.toggle("finished", !!session.finished);
    $("event-open").hidden = !!session.finished;
    $("undo").disabled = !session.can_undo;
    $("redo").disabled = !session.can_redo || !!session.finished;
    for (const w of session.warnings || []) say(I18n.render(w), "error");
    if (deckPanel) deckPanel.update(state);
  }

  function accept(newState) {
    const newSeq = newState.session ? newState.session.seq : 0;
    if (newSeq < seq) return; // an older picture than the one shown
    state = newState;
    seq = newSeq;
    document.body.dataset.seq = String(seq);
    render();
  }

  async function refresh() {
    const [stateResponse, journalResponse] = await Promise.all([fetch(apiUrl, { cache: "no-store" }), fetch(apiUrl + "/journal", { cache: "no-store" })]);
    if (!stateResponse.ok) throw new Error(_("table not found"));
    const fresh = await stateResponse.json();
    seq = -1; // a full re-sync replaces whatever was shown
    accept(fresh);
    if (journalResponse.ok) {
      const { journal } = await journalResponse.json();
      $("log").replaceChildren();
      seen.clear();
      for (const entry of journal.slice(-200)) addLog(entry);
    }
  }

  // -- live stream ---------------------------------------------------------------------------------
  // Each change carries the table's revision ("rev", also the event id) and the JSON Patch (RFC 6902:
  // add, remove, replace) it made to the state; applied in order they give the server's state. A gap
  // (a missed change) or a patch that does not apply starts over from a full state.
  function pointer(path) {
    return path === "" ? [] : path.slice(1).split("/").map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
  }
  function applyPatch(doc, ops) {
    for (const op of ops) {
      const parts = pointer(op.path);
      if (!parts.length) { doc = op.value; continue; }
      let parent = doc;
      for (const part of parts.slice(0, -1)) parent = parent[Array.isArray(parent) ? Number(part) : part];
      const last = parts[parts.length - 1];
      if (Array.isArray(parent)) {
        if (op.op === "add" && last === "-") parent.push(op.value);
        else if (op.op === "add") parent.splice(Number(last), 0, op.value);
        else if (op.op === "remove") parent.splice(Number(last), 1);
        else parent[Number(last)] = op.value;
      } else if (op.op === "remove") delete parent[last];
      else parent[last] = op.value;
    }
    return doc;
  }
  function applyChange(data) {
    if (!state || data.rev <= seq) return; // already shown (e.g. this phone's own change, from its answer)
    if (data.rev !== seq + 1 || !Array.isArray(data.patch)) { scheduleResync(0); return; }
    let next;
    try {
      next = applyPatch(JSON.parse(JSON.stringify(state)), data.patch);
    } catch (error) {
      console.error(error);
      scheduleResync(0);
      return;
    }
    accept(next);
  }

  function setLive(on) {
    $("live").className = "live " + (on ? "online" : "offline");
    $("live").title = on ? _("live") : _("reconnecting…");
    document.body.dataset.live = on ? "1" : "0";
  }

  function connect() {
    clearTimeout(reconnectTimer);
    if (source) source.close();
    source = new EventSource(seq >= 0 ? streamUrl + "?after=" + seq : streamUrl);
    source.addEventListener("open", () => setLive(true));
    source.addEventListener("snapshot", (message) => accept(JSON.parse(message.data).state));
    source.addEventListener("change", (message) => {
      const data = JSON.parse(message.data);
      addLog(data);
      applyChange(data);
    });
    source.addEventListener("error", () => {
      setLive(false);
      // EventSource retries by itself (with Last-Event-ID); when it gives up, start over from a full state.
      if (source.readyState === EventSource.CLOSED) scheduleResync(2000);
    });
  }

  function scheduleResync(delay) {
    clearTimeout(reconnectTimer);
    reconnectTimer = setTimeout(() => refresh().then(connect, () => scheduleResync(Math.min(delay * 2, 15000))), delay);
  }

  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") {
      keepAwake();
      if (!source || source.readyState === EventSource.CLOSED) scheduleResync(0);
    }
  });
  window.addEventListener("online", () => scheduleResync(0));

  // -- screen stays awake ------------------------------------------------------------------------
  let wakeLock = null;
  async function keepAwake() {
    if (!("wakeLock" in navigator)) {
      // Older browsers (and plain-HTTP pages on some) cannot hold the screen on: say so once.
      $("wake-note").hidden = false;
      document.body.dataset.wake = "unsupported";
      return;
    }
    try {
      wakeLock = await navigator.wakeLock.request("screen");
      document.body.dataset.wake = "on";
      wakeLock.addEventListener("release", () => { document.body.dataset.wake = "off"; });
    } catch (error) {
      // Not allowed right now (page hidden, battery saver): try again on the next tap or return.
      document.body.dataset.wake = "denied";
    }
  }
  document.addEventListener("click", () => { if (document.body.dataset.wake !== "on") keepAwake(); }, { passive: true });

  // -- referee -------------------------------------------------------------------------------------
  // This phone holds the referee's key (the bar with Undo shows); it may enter moves only while the game is on.
  function isReferee() { return !!pin; }
  function mayEnterMoves() { return isReferee() && !(state && state.session && state.session.finished); }
  function showReferee() {
    document.body.classList.toggle("referee", isReferee());
    $("referee-bar").hidden = !isReferee();
    $("referee-toggle").textContent = isReferee() ? _("Referee ✓") : _("Referee");
    render();
  }

  function newKey() {
    const bytes = new Uint8Array(12);
    crypto.getRandomValues(bytes);
    return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  // One tap, one change: the request carries an Idempotency-Key, and a request lost on a bad network is
  // sent again with the same key, so the server applies it once however many copies arrive.
  async function call(path, body) {
    const init = {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Referee-Pin": pin || "", "Idempotency-Key": newKey() },
      body: body === undefined ? "{}" : JSON.stringify(body),
    };
    let response;
    for (let attempt = 1; ; attempt++) {
      try {
        response = await fetch(apiUrl + path, init);
        break;
      } catch (error) {
        if (attempt >= 3) throw new Error(_("no connection to the server: %(error)s", { error: error.message }));
        await new Promise((resolve) => setTimeout(resolve, 800 * attempt));
      }
    }
    let data = {};
    try { data = await response.json(); } catch (_) { /* empty body */ }
    if (response.status === 403) {
      pin = null; localStorage.removeItem(pinKey); showReferee();
    }
    if (response.status === 409) refresh().catch(() => scheduleResync(2000)); // someone else changed it first
    if (!response.ok) throw new Error(data.error || response.statusText);
    if (data.entry) addLog(data.entry);
    if (data.state) accept(data.state);
    return data;
  }

  async function send(event) {
    try {
      await call("/events", event);
      say("");
      return true;
    } catch (error) {
      say(error.message, "error");
      return false;
    }
  }

  $("referee-toggle").addEventListener("click", () => {
    if (isReferee()) {
      if (confirm(_("Leave referee mode on this phone?"))) { pin = null; localStorage.removeItem(pinKey); showReferee(); }
      return;
    }
    $("pin-error").hidden = true;
    $("pin-input").value = "";
    $("pin-dialog").showModal();
  });
  $("pin-cancel").addEventListener("click", () => $("pin-dialog").close());
  $("pin-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const tried = $("pin-input").value.trim();
    const response = await fetch(apiUrl + "/pin", { method: "POST", headers: { "X-Referee-Pin": tried } });
    if (response.ok) {
      pin = tried; localStorage.setItem(pinKey, pin);
      $("pin-dialog").close(); showReferee(); say(_("You are the referee on this phone."));
    } else {
      const data = await response.json().catch(() => ({}));
      $("pin-error").textContent = data.error || _("wrong PIN"); $("pin-error").hidden = false;
    }
  });
  // Undo names the change it undoes: two referees pressing it together undo one event, not two.
  $("undo").addEventListener("click", () => call("/undo", { undoes: state && state.session ? state.session.undo_seq : undefined })
    .catch((e) => say(e.message, "error")));
  $("redo").addEventListener("click", () => call("/redo").catch((e) => say(e.message, "error")));

  // -- card picker ---------------------------------------------------------------------------------
  let pickerResolve = null;
  function buildPicker() {
    const grid = $("picker");
    for (const suit of Cards.SUITS) {
      grid.append(h("div.picker-row", Cards.RANKS.map((r) => h("button.pick", { type: "button", dataset: { card: r + suit }, "aria-label": Cards.name(r + suit), onclick: () => finishPick(r + suit) }, Cards.el(r + suit)))));
    }
    grid.append(h("div.picker-row.special", ["BJ", "SJ", "BACK"].map((c) => h("button.pick", { type: "button", dataset: { card: c }, "aria-label": Cards.name(c), onclick: () => finishPick(c) }, Cards.el(c), h("span.pick-name", { "aria-hidden": "true" }, Cards.name(c))))));
  }
  function finishPick(value) {
    $("picker-dialog").close();
    const resolve = pickerResolve; pickerResolve = null;
    if (resolve) resolve(value);
  }
  /** Opens the picker; resolves to a card code, "" for "remove" (when allowed), or null. */
  function pick(title, { allowClear = false, only = null } = {}) {
    $("picker-title").textContent = title || _("Pick a card");
    $("picker-clear").hidden = !allowClear;
    for (const button of $("picker").querySelectorAll("button.pick")) button.disabled = !!only && !only.includes(button.dataset.card);
    $("picker-dialog").showModal();
    return new Promise((resolve) => { pickerResolve = resolve; });
  }
  $("picker-clear").addEventListener("click", () => finishPick(""));
  $("picker-cancel").addEventListener("click", () => finishPick(null));
  $("picker-dialog").addEventListener("close", () => { if (pickerResolve) finishPick(null); });

  // -- any event as JSON ---------------------------------------------------------------------------
  function openEvent(template) {
    $("event-error").hidden = true;
    $("event-json").value = JSON.stringify(template || { type: "" }, null, 1);
    const templates = (screen().templates || (() => []))(state, ctx);
    $("event-templates").replaceChildren(...templates.map((t) => h("button.secondary.small", { type: "button", onclick: () => { $("event-json").value = JSON.stringify(t.event, null, 1); } }, t.label)));
    $("event-dialog").showModal();
  }
  $("event-open").addEventListener("click", () => openEvent());
  $("event-cancel").addEventListener("click", () => $("event-dialog").close());
  $("event-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    let body;
    try { body = JSON.parse($("event-json").value); } catch (error) {
      $("event-error").textContent = _("not JSON: %(error)s", { error: error.message }); $("event-error").hidden = false; return;
    }
    try {
      await call("/events", body);
      $("event-dialog").close();
    } catch (error) {
      $("event-error").textContent = error.message; $("event-error").hidden = false;
    }
  });

  // -- join code -----------------------------------------------------------------------------------
  $("show-join").addEventListener("click", () => {
    // A phone holding the referee token can hand the referee's role on: its link as a QR code.
    if (pin && pin.length > 12 && !$("referee-qr")) {
      const src = apiUrl + "/qr.svg?referee=" + encodeURIComponent(pin);
      $("join-dialog").querySelector("form[method=dialog]")?.before(h("details#referee-qr", h("summary", _("Referee link (gives the referee's role)")),
        h("img", { src, alt: _("QR code of the referee link"), width: 200, height: 200 })));
    }
    $("join-dialog").showModal();
  });

  // The screens, the camera, the questions and the deck panel offer their entry to ctx.isReferee(): a finished game offers none.
  const ctx = { isReferee: mayEnterMoves, send, call, pick, say, openEvent, tableId, game, rerender: render, accept, get state() { return state; } };
  window.companion = ctx;
  deckPanel = window.Deck ? window.Deck.init(ctx) : null;
  if (window.Questions) window.Questions.init(ctx, apiUrl, () => pin);
  if (window.Camera) window.Camera.init(ctx, apiUrl, () => pin);

  const newPin = sessionStorage.getItem("companion-new:" + tableId);
  if (newPin) {
    sessionStorage.removeItem("companion-new:" + tableId);
    say(_("Your referee PIN is %(pin)s. Note it: other phones need it to referee. Share the code %(code)s to let players watch.", { pin: newPin, code: tableId }), "info");
  }
  buildPicker();
  showReferee();
  keepAwake();
  refresh().then(connect, (error) => { say(error.message, "error"); scheduleResync(2000); });
})();
