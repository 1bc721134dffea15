/* Camera dialog: watch the table camera's latest frame, or make this phone the camera.
   getUserMedia needs a secure page (HTTPS, or localhost): start the server with --https. */
"use strict";
window.Camera = (() => {
  const $ = (id) => document.getElementById(id);
  let stream = null, timer = null, viewTimer = null;
  // How often a phone asks for the camera's questions: a question waits at most this long to show.
  const QUESTION_POLL_MS = 3000;

  const STATE_WORDS = { settled: N_("settled"), settling: N_("settling"), question: N_("question") };
  // Why the browser gave no camera, by its error's name: its own message is in the browser's language.
  const CAMERA_REFUSALS = {
    NotAllowedError: N_("the camera was not allowed (allow it in the browser's site settings)"),
    NotFoundError: N_("this phone shows no camera"),
    NotReadableError: N_("another app is using the camera"),
    OverconstrainedError: N_("the camera cannot give the picture asked for"),
    SecurityError: N_("this page may not use the camera"),
  };
  const stateWord = (state) => _(STATE_WORDS[state] || state);

  /** Labels over the picture: code and state only, sized for the phone, nudged apart so none overlap. */
  function drawLabels(data, frame) {
    const layer = $("camera-labels");
    const tracks = (data.feed && data.feed.tracks) || [];
    const questions = data.questions || [];
    if (!frame || !frame.width) { layer.replaceChildren(); return; }
    const unread = _("unread card");
    const nodes = tracks.filter((t) => t.pixel).map((t) => {
      const asked = questions.find((q) => q.status === "open" && q.track === t.track);
      const label = h("button.cam-label." + t.state, { type: "button", dataset: { track: t.track, state: t.state },
        "aria-label": _("%(card)s, %(state)s", { card: t.card ? Cards.name(t.card) : unread, state: stateWord(t.state) }),
        onclick: () => {
          if (asked && window.Questions) { $("camera-dialog").close(); window.Questions.show(asked); return; }
          const card = t.card ? Cards.name(t.card) : _("An unread card");
          $("camera-picked").textContent = t.zone
            ? _("%(card)s: %(state)s in %(zone)s.", { card, state: stateWord(t.state), zone: Screens.zoneName(t.zone) })
            : _("%(card)s: %(state)s.", { card, state: stateWord(t.state) });
        } }, t.card === "BACK" ? "▒" : (t.card || "…"), t.state === "question" ? "?" : "");
      // Through the CSSOM, not a style attribute: a strict Content-Security-Policy allows only the former.
      label.style.left = (100 * t.pixel[0] / frame.width).toFixed(2) + "%";
      label.style.top = (100 * t.pixel[1] / frame.height).toFixed(2) + "%";
      return label;
    });
    layer.replaceChildren(...nodes);
    // Greedy, top to bottom: each label takes the nearest free spot around its card (below, above, to the
    // sides, then further), inside the picture, so no two labels overlap.
    const stage = layer.getBoundingClientRect();
    if (stage.height < 2) return; // the picture is not shown yet: its load event lays them out
    const placed = [];
    const free = (r) => r.left >= stage.left && r.right <= stage.right && r.top >= stage.top && r.bottom <= stage.bottom &&
      placed.every((o) => r.right <= o.left || r.left >= o.right || r.bottom <= o.top || r.top >= o.bottom);
    nodes.map((n) => [n, n.getBoundingClientRect()]).sort((a, b) => a[1].top - b[1].top).forEach(([node, box]) => {
      const w = box.width + 2, hgt = box.height + 2;
      const moves = [[0, 0]];
      for (let k = 1; k <= 4; k++) moves.push([0, k * hgt], [0, -k * hgt], [k * w, 0], [-k * w, 0], [k * w, k * hgt], [-k * w, -k * hgt], [k * w, -k * hgt], [-k * w, k * hgt]);
      const move = moves.find(([dx, dy]) => free({ left: box.left + dx, right: box.right + dx, top: box.top + dy, bottom: box.bottom + dy })) || [0, 0];
      if (move[0] || move[1]) node.style.transform = "translate(calc(-50% + " + move[0] + "px), calc(-50% + " + move[1] + "px))";
      placed.push({ left: box.left + move[0], right: box.right + move[0], top: box.top + move[1], bottom: box.bottom + move[1] });
    });
  }

  function init(ctx, apiUrl, getPin) {
    const view = $("camera-view"), video = $("camera-video"), status = $("camera-status");
    let latestStatus = null;

    async function poll() {
      const response = await fetch(apiUrl + "/camera", { cache: "no-store" }).catch(() => null);
      if (!response || !response.ok) return null;
      const data = await response.json();
      latestStatus = data;
      if (window.Questions) window.Questions.update(data.questions);
      if (window.Deck && data.deck) window.Deck.show(data.deck);   // e.g. its deck left the data folder
      return data;
    }

    async function showStatus() {
      const data = await poll();
      if (!data) return;
      $("camera-server").hidden = !data.server_camera || !ctx.isReferee();
      $("camera-phone").hidden = !ctx.isReferee();
      const f = data.feed;
      const open = (data.questions || []).filter((q) => q.status === "open").length;
      if (!f) { $("camera-feed").textContent = _("No camera is watching this table."); drawLabels(data, data.latest_frame); return; }
      const parts = [_("%(source)s: %(frames)s frames, %(events)s camera events", { source: f.source, frames: I18n.number(f.frames), events: I18n.number(f.camera_events) })];
      if (f.overruled_by_referee) parts.push(_("%(n)s overruled by the referee", { n: f.overruled_by_referee }));
      if (f.error) parts.push(I18n.render(f.error));
      if (open) parts.push(ngettext("%(n)d open question (marked on the board)", "%(n)d open questions (marked on the board)", open));
      $("camera-feed").textContent = parts.join(" · ");
      drawLabels(data, data.latest_frame);
    }

    function showLatest() {
      showStatus();
      const probe = new Image();
      probe.onload = () => { view.src = probe.src; $("camera-stage").hidden = false; };
      probe.onerror = () => { if ($("camera-stage").hidden) $("camera-picked").textContent = _("No camera frame yet."); };
      probe.src = apiUrl + "/frame.jpg?t=" + Date.now();
    }

    // Labels are laid out once the shown picture has its size.
    view.addEventListener("load", () => { if (latestStatus) drawLabels(latestStatus, latestStatus.latest_frame); });

    // Questions reach every phone: the camera status is read every few seconds even with the dialog shut.
    poll();
    setInterval(() => { if (document.visibilityState === "visible" && !$("camera-dialog").open) poll(); }, QUESTION_POLL_MS);

    $("camera-open").addEventListener("click", () => {
      $("camera-dialog").showModal();
      showLatest();
      clearInterval(viewTimer);
      viewTimer = setInterval(showLatest, 1000);
    });
    $("camera-close").addEventListener("click", () => { clearInterval(viewTimer); $("camera-dialog").close(); });
    $("camera-dialog").addEventListener("close", () => clearInterval(viewTimer));

    // -- sending frames: the server reads them (the fallback when this phone cannot read its own cards)
    function startFrames() {
      const canvas = document.createElement("canvas");
      let busy = false;
      document.body.dataset.reader = "frames";
      timer = setInterval(async () => {
        if (busy || !video.videoWidth) return;
        busy = true;
        canvas.width = video.videoWidth; canvas.height = video.videoHeight;
        canvas.getContext("2d").drawImage(video, 0, 0);
        const blob = await new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", 0.8));
        try {
          const response = await fetch(apiUrl + "/frames", { method: "POST", headers: { "Content-Type": "image/jpeg", "X-Referee-Pin": getPin() || "" }, body: blob });
          const data = await response.json().catch(() => ({}));
          const sending = _("Sending frames… (%(width)s×%(height)s)", { width: data.width, height: data.height });
          status.textContent = response.ok ? (fallbackReason ? fallbackReason + " " + sending : sending)
            : _("Frame refused: %(error)s", { error: data.error || response.status });
          if (response.ok) document.body.dataset.framesSent = String(Number(document.body.dataset.framesSent || 0) + 1);
        } finally { busy = false; }
      }, 700);
    }

    // -- reading here: the phone reads its own cards (reader_worker.js) and sends what it read
    let reading = null, fallbackReason = "";
    function fallBack(reason) {
      if (reading) { reading.stop(); reading = null; }
      $("camera-reader").hidden = true;
      fallbackReason = reason;
      document.body.dataset.readerFallback = reason;
      status.textContent = reason;
      if (stream) startFrames();
    }

    $("camera-phone").addEventListener("click", async () => {
      if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
        status.textContent = _("This page cannot use the camera: a phone lets only secure (https://) pages use it. Ask whoever runs the companion for its https:// address.");
        return;
      }
      try {
        stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: "environment", width: { ideal: 1280 } }, audio: false });
      } catch (error) {
        const reason = CAMERA_REFUSALS[error.name] ? _(CAMERA_REFUSALS[error.name]) : error.message;
        status.textContent = _("Camera refused: %(error)s", { error: reason });
        return;
      }
      video.srcObject = stream; video.hidden = false; await video.play();
      $("camera-stop").hidden = false;
      fallbackReason = "";
      status.textContent = _("Starting this phone's card reader…");
      reading = window.PhoneReader.start({ video, apiUrl, getPin, modelsUrl: view.closest("dialog").dataset.models,
        workerUrl: view.closest("dialog").dataset.readerWorker,
        onStatus: (text) => { status.textContent = text; }, onFallback: fallBack,
        onChoice: (text) => { const line = $("camera-reader"); line.textContent = text; line.hidden = false; } });
    });
    $("camera-server").addEventListener("click", async () => {
      const response = await fetch(apiUrl + "/camera", { method: "POST", headers: { "Content-Type": "application/json", "X-Referee-Pin": getPin() || "" }, body: JSON.stringify({ use: "server" }) });
      const data = await response.json().catch(() => ({}));
      status.textContent = response.ok ? _("The server camera now watches this table.") : _("Server camera: %(error)s", { error: data.error || response.status });
      showLatest();
    });
    $("camera-stop").addEventListener("click", () => {
      clearInterval(timer);
      if (reading) { reading.stop(); reading = null; }
      if (stream) stream.getTracks().forEach((t) => t.stop());
      stream = null; video.hidden = true; $("camera-stop").hidden = true;
    });
  }
  return { init };
})();
