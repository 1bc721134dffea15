/* The phone reads its own cards (issue 23): frames from its camera go to reader_worker.js (the shipped
   networks in onnxruntime-web, companion.vision's pre/post-processing), what it reads is posted to
   POST /api/tables/<id>/detections at the rate it can read, a still of the frame when the server asks
   (want_frame: it finds the mat in it), the closer look sized by the index size the server answers.
   It reads with the table's learned deck where the table has one (GET <table>/deck/profile: the prototypes,
   as the server's reader would) and names it in each post (reader.deck); a deck changed meanwhile (409) is
   fetched again. The networks run on WebGPU where the browser has it, else WebAssembly (reader.backend).
   When this phone cannot (no WebAssembly, no runtime or models on the server, the models fail to load,
   the table's deck cannot be read here, it reads too slowly, the server refuses its readings) ``onFallback``
   gets the reason, in the page's language, and camera.js sends frames instead. ``onChoice`` gets which
   backend reads and why (WebGPU, or WebAssembly and why not WebGPU), in the page's language.
   Frames are read as the server reads a camera's: only what changed since the frame read before
   (reader_core.js makeIncrementalReader, as companion.vision.incremental). */
"use strict";
window.PhoneReader = (() => {
  // As a table computer posts (companion/table/remote.py): the server takes 10 a second per table.
  const MAX_POSTS_PER_SECOND = 8;
  // Loading both networks into WebAssembly: a few seconds on a phone, more on a loaded laptop.
  const INIT_TIMEOUT_MS = 120000;
  const READ_TIMEOUT_MS = 60000;
  // A phone judged by its last few frames, not its first (the first runs also compile the kernels).
  const SLOW_AFTER_READS = 3;
  const STILL_QUALITY = 0.85;   // the table computer's STILL_JPEG_QUALITY
  const BACKOFF_START_MS = 500, BACKOFF_MAX_MS = 30000;

  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const round = (value, digits) => Math.round(value * 10 ** digits) / 10 ** digits;
  const median = (values) => { const s = [...values].sort((a, b) => a - b), m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };

  function still(canvas) {
    return new Promise((resolve) => canvas.toBlob((blob) => {
      const reader = new FileReader();
      reader.onload = () => resolve(String(reader.result).split(",", 2)[1]);
      reader.readAsDataURL(blob);
    }, "image/jpeg", STILL_QUALITY));
  }

  /** Why the worker reads where it does (its "ready" answer), in the page's language. */
  function choice(ready) {
    if (ready.backend === "webgpu") return _("Reading on WebGPU: this phone's graphics processor runs the networks.");
    const reasons = {
      "no navigator.gpu": _("this browser has no WebGPU"),
      "no WebGPU adapter": _("the browser offers no WebGPU device on this phone"),
      "software WebGPU adapter": _("its WebGPU is emulated on the processor, slower than WebAssembly"),
      "no WebGPU build on the server": _("the server has no WebGPU build of the runtime"),
      "not asked": _("WebGPU was not asked for"),
    };
    const reason = reasons[ready.webgpu] || _("WebGPU could not run the networks (%(error)s)", { error: ready.webgpu });
    const threads = ready.isolated || ready.threads > 1 ? "" : " " + _("(one thread: the page is not cross-origin isolated)");
    return ngettext("Reading on WebAssembly with SIMD and %(n)d thread: %(reason)s.", "Reading on WebAssembly with SIMD and %(n)d threads: %(reason)s.",
      ready.threads, { n: ready.threads, reason }) + threads;
  }

  function start({ video, apiUrl, getPin, modelsUrl, workerUrl, onStatus, onFallback, onChoice = () => {} }) {
    let stopped = false, worker = null, waiting = null;
    const stop = () => {
      stopped = true;
      if (worker) worker.terminate();
      worker = null;
      if (waiting) waiting.reject(new Error("stopped"));
    };
    const fail = (reason) => { if (!stopped) { stop(); onFallback(reason); } };

    /** One message to the worker and its answer (one at a time). */
    function ask(message, transfer, timeoutMs) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(_("no answer in %(seconds)s s", { seconds: timeoutMs / 1000 }))), timeoutMs);
        waiting = {
          resolve: (value) => { clearTimeout(timer); waiting = null; resolve(value); },
          reject: (error) => { clearTimeout(timer); waiting = null; reject(error); },
        };
        worker.postMessage(message, transfer);
      });
    }

    function post(body) {
      return fetch(apiUrl + "/detections", { method: "POST", body: JSON.stringify(body),
        headers: { "Content-Type": "application/json", "X-Referee-Pin": getPin() || "" } });
    }

    async function run() {
      if (typeof WebAssembly !== "object" || typeof Worker !== "function") {
        return fail(_("This browser cannot run the card reader (no WebAssembly): sending frames to the server instead."));
      }
      const response = await fetch(modelsUrl).catch(() => null);
      if (!response || !response.ok) return fail(_("The server has no models for this phone to read with: sending frames to the server instead."));
      const models = await response.json();
      if (!models.reader.enabled) return fail(_("This server reads the cards of every table itself: sending frames to the server."));
      if (!models.runtime) {
        return fail(_("The card reader for phones is not installed on this server (scripts/setup.sh installs it): sending frames to the server instead."));
      }
      // The table's learned deck, read as the server would read it (none: the general models)
      const deckProfile = async () => {
        const answer = await fetch(apiUrl + "/deck/profile").catch(() => null);
        const body = answer ? await answer.json().catch(() => ({})) : {};
        if (!answer || !answer.ok) throw new Error(body.error || (answer ? answer.status : "no answer"));
        return body.deck ? body : null;
      };
      let deck;
      try {
        deck = await deckProfile();
      } catch (error) {
        return fail(_("This phone cannot read with the table's learned deck (%(error)s): sending frames to the server instead.", { error: error.message }));
      }
      worker = new Worker(workerUrl);
      worker.onmessage = (event) => {
        if (!waiting) return;
        if (event.data.type === "error") waiting.reject(new Error(event.data.message)); else waiting.resolve(event.data);
      };
      worker.onerror = (event) => { event.preventDefault(); if (waiting) waiting.reject(new Error(event.message || "worker error")); };
      let ready;
      try {
        ready = await ask({ type: "init", models, deck }, [], INIT_TIMEOUT_MS);
      } catch (error) {
        return fail(_("This phone's card reader could not start (%(error)s): sending frames to the server instead.", { error: error.message }));
      }
      if (stopped) return;
      document.body.dataset.reader = "browser";
      document.body.dataset.readerBackend = ready.backend;   // "webgpu" or "wasm"; ready.webgpu says why not WebGPU
      document.body.dataset.readerWebgpu = ready.webgpu;
      document.body.dataset.readerPrecision = ready.precision;
      document.body.dataset.readerDeck = ready.deck || "";
      document.body.dataset.readerThreads = String(ready.threads);
      onChoice(choice(ready));
      let deckName = ready.deck;
      const slowMs = models.reader.slow_read_ms;
      // A hand over the table, as the server judges its own frames: while one covers it, a card unseen is
      // not gone (without it a hand carrying cards had them removed and placed anew, not moved).
      const skin = models.contract.skin || null;
      const rescale = (models.contract.incremental || {}).rescale || 0;
      const feed = "phone-" + Array.from(crypto.getRandomValues(new Uint8Array(6)), (b) => b.toString(16).padStart(2, "0")).join("");
      const canvas = document.createElement("canvas"), context = canvas.getContext("2d", { willReadFrequently: true });
      const started = performance.now(), times = [];
      let seq = 0, wantFrame = true, indexPx = null, backoff = BACKOFF_START_MS;
      while (!stopped) {
        const began = performance.now();
        if (!video.videoWidth) { await sleep(100); continue; }
        const width = video.videoWidth, height = video.videoHeight;
        canvas.width = width; canvas.height = height;
        context.drawImage(video, 0, 0, width, height);
        const time = (performance.now() - started) / 1000;
        const pixels = context.getImageData(0, 0, width, height).data;
        const read = await ask({ type: "read", id: seq, width, height, rgba: pixels.buffer, indexPx, skin }, [pixels.buffer], READ_TIMEOUT_MS);
        if (stopped) return;
        times.push(read.ms);
        const recent = median(times.slice(-SLOW_AFTER_READS));
        if (times.length >= SLOW_AFTER_READS && recent > slowMs) {
          return fail(_("This phone reads too slowly (%(ms)s ms a frame): sending frames to the server instead.", { ms: Math.round(recent) }));
        }
        const box = (b) => [round(Math.max(0, b[0]), 2), round(Math.max(0, b[1]), 2), round(Math.min(width, b[2]), 2), round(Math.min(height, b[3]), 2)];
        const body = {
          frame: { width, height, time: round(time, 4), seq, feed },
          indices: read.indices.map((r) => ({ box: box(r.box), score: round(r.score, 4), code: r.code, code_score: round(r.code_score, 4), turn: r.turn })),
          backs: read.backs.map((b) => ({ box: box(b.box), score: round(b.score, 4) })),
          reader: { kind: "browser", backend: ready.backend, ms: round(read.ms, 1), models: models.models, deck: deckName },
        };
        if (skin && read.skin != null) body.occluded = read.skin >= skin.occluder_fraction;
        if (wantFrame) body.mat_frame = await still(canvas);
        seq += 1;
        const answer = await post(body).catch(() => null);
        if (stopped) return;
        if (!answer || answer.status >= 500) {
          onStatus(_("No answer from the server: trying again in %(seconds)s s", { seconds: backoff / 1000 }));
          await sleep(backoff);
          backoff = Math.min(BACKOFF_MAX_MS, backoff * 2);
          continue;
        }
        backoff = BACKOFF_START_MS;
        const data = await answer.json().catch(() => ({}));
        if (answer.status === 429) { await sleep(1000 * (Number(answer.headers.get("Retry-After")) || 1)); continue; }
        if (answer.status === 409) {
          // the referee may have chosen another deck since: read with the table's deck as it is now
          const now = await deckProfile().catch(() => undefined);
          if (now !== undefined && (now ? now.deck : null) !== deckName) {
            try {
              deckName = (await ask({ type: "deck", deck: now }, [], INIT_TIMEOUT_MS)).deck;
            } catch (error) {
              return fail(_("This phone cannot read with the table's learned deck (%(error)s): sending frames to the server instead.", { error: error.message }));
            }
            document.body.dataset.readerDeck = deckName || "";
            wantFrame = true;
            continue;
          }
        }
        if (!answer.ok) {
          return fail(_("The server refused this phone's readings (%(error)s): sending frames to the server instead.", { error: data.error || answer.status }));
        }
        wantFrame = Boolean(data.want_frame);
        // a new index size makes the reader read everything anew: taken, as the table pipeline tells its own
        // detector, only when it moved by contract.incremental.rescale (the mat re-found every few seconds
        // answers a size a few hundredths of a pixel off)
        const answered = data.index_px == null ? null : data.index_px;
        if (answered === null || indexPx === null || Math.abs(indexPx - answered) > rescale * answered) indexPx = answered;
        document.body.dataset.detectionsSent = String(Number(document.body.dataset.detectionsSent || 0) + 1);
        const backend = ready.backend === "webgpu" ? "WebGPU" : "WebAssembly";
        onStatus(deckName
          ? _("This phone reads the cards itself with the deck “%(deck)s” (%(backend)s): %(ms)s ms a frame, %(cards)s in view.",
            { deck: deckName, backend, ms: Math.round(read.ms), cards: (data.cards || []).length })
          : _("This phone reads the cards itself (%(backend)s): %(ms)s ms a frame, %(cards)s in view.",
            { backend, ms: Math.round(read.ms), cards: (data.cards || []).length }));
        await sleep(Math.max(0, 1000 / MAX_POSTS_PER_SECOND - (performance.now() - began)));
      }
    }

    run().catch((error) => {
      fail(_("This phone's card reader stopped (%(error)s): sending frames to the server instead.", { error: error.message }));
    });
    return { stop };
  }

  return { start };
})();
