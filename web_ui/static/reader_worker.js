/* The phone's own reader in a worker: onnxruntime-web (vendored by scripts/setup.sh into static/vendor/,
   never fetched from elsewhere) runs the shipped detector and classifier, reader_core.js does everything
   around them as companion.vision does. The page stays responsive while a frame is read.

   The networks run on WebGPU where the browser gives a hardware adapter (and the server vendored the WebGPU
   build), else, or when WebGPU fails to take them, on WebAssembly (SIMD; threads where the page is
   cross-origin isolated). A software adapter (SwiftShader: the GPU emulated on the CPU, most of a minute a
   frame here against under a second on WebAssembly) is used only when asked for ("webgpu-software").
   ``backend`` in the answer says which, ``webgpu`` why (or "used").

   Frames are read as companion.vision.incremental reads a camera's (reader_core makeIncrementalReader): only
   what changed since the frame read before, the whole frame every few frames; ``whole: true`` reads a
   frame in full (Detector.read), as the parity tests compare.

   Messages in:  {type: "init", models: <GET /api/models>, deck: <profile> | null, backends?, threads?}
                                                                  → {type: "ready", backend, precision, threads, deck, embedding, webgpu, batch}
                 {type: "deck", deck: <GET /api/tables/<id>/deck/profile> | null}  → {type: "deck", deck}
                 {type: "read", id, width, height, rgba | rgb, indexPx, skin, whole?}
                                                                  → {type: "read", id, indices, backs, ms, skin, work, detect_ms, classify_ms}
                 {type: "reset", id}                              → {type: "reset", id} (the next frame is read as a camera's first)
                 (skin in: contract.skin, to measure the skin share of the frame; out: that share, or null;
                 work: what the frame cost, {changed, passes, classified, kept}; detect_ms, classify_ms: the
                 time in the two networks, the rest of ms is the JavaScript around them)
   Any failure answers {type: "error", id, stage: "init" | "deck" | "read", message}. */
"use strict";
importScripts("reader_core.js");

let reader = null, incremental = null, makeReader = null, embedding = false;
// time in the networks during the frame being read
const spent = { detect: 0, classify: 0 };

/** Whether this browser gives WebGPU an adapter (headless browsers and many phones do not), and why not. */
async function webgpuAdapter(software) {
  if (!self.navigator || !navigator.gpu) return "no navigator.gpu";
  try {
    const adapter = await navigator.gpu.requestAdapter();
    if (!adapter) return "no WebGPU adapter";
    const info = adapter.info || {};
    const emulated = adapter.isFallbackAdapter || info.isFallbackAdapter || /swiftshader/i.test(`${info.vendor} ${info.architecture} ${info.description}`);
    return emulated && !software ? "software WebGPU adapter" : null;
  } catch (error) {
    return String((error && error.message) || error);
  }
}

async function init(models, deck, backends, wantedThreads) {
  const runtime = models.runtime;
  if (!runtime) throw new Error("onnxruntime-web is not installed on this server (scripts/setup.sh vendors it)");
  if (typeof WebAssembly !== "object") throw new Error("this browser has no WebAssembly");
  const wanted = backends || ["webgpu", "wasm"], software = wanted.includes("webgpu-software");
  let webgpu = !(wanted.includes("webgpu") || software) ? "not asked" : !runtime.webgpu ? "no WebGPU build on the server"
    : await webgpuAdapter(software);
  // The WebGPU build also runs WebAssembly (its own .jsep files): one runtime whichever backend the sessions get.
  importScripts(runtime.path + (webgpu === null ? "ort.webgpu.min.js" : "ort.wasm.min.js"));
  const ort = self.ort;
  ort.env.wasm.wasmPaths = runtime.path;
  ort.env.wasm.proxy = false;   // this is the worker already
  // Threads need a cross-origin isolated page (the server sends COOP and COEP); otherwise one thread. One core
  // is left to the page itself (the camera, the canvas, the posts) and the browser: on this 2-core machine,
  // loaded (load average 23-28), a frame read in full took the worker's detector 5.1-5.4 s on one thread
  // against 7.5-9.3 s on two (the server's reader 1.3-2.3 s beside it; benchmarks/bench_browser.py's
  // frames, 2026-12-04): two threads waited on each other for cores the others held.
  // (``threads`` in the init message: a benchmark's choice instead)
  const threads = !self.crossOriginIsolated ? 1 : wantedThreads || Math.max(1, Math.min(4, (navigator.hardwareConcurrency || 2) - 1));
  ort.env.wasm.numThreads = threads;
  const bytes = async (file) => {
    const response = await fetch(file.url);
    if (!response.ok) throw new Error(`${file.file}: HTTP ${response.status}`);
    return new Uint8Array(await response.arrayBuffer());
  };
  // The classifier's copy with its pooled features as a second output where the server has one: a learned deck reads them.
  const files = (precision) => [models.detector[precision] || models.detector.f32,
    (models.classifier.embedding && (models.classifier.embedding[precision] || models.classifier.embedding.f32))
      || models.classifier[precision] || models.classifier.f32];
  const size = models.detector.imgsz, crop = models.classifier.imgsz;
  /** Both sessions on these providers, each run once on a blank input: a backend that takes a model but
      cannot run one of its kernels fails here, not on the first frame. */
  const open = async (precision, providers) => {
    const made = [];
    for (const model of await Promise.all(files(precision).map(bytes))) {   // one session after the other on one device
      made.push(await ort.InferenceSession.create(model, { executionProviders: providers, graphOptimizationLevel: "all" }));
    }
    for (const [session, side] of [[made[0], size], [made[1], crop]]) {
      await session.run({ [session.inputNames[0]]: new ort.Tensor("float32", new Float32Array(3 * side * side), [1, 3, side, side]) });
    }
    return made;
  };
  let sessions = null, backend = "wasm", precision = models.precision;
  if (webgpu === null) {
    // The server's precision first, then the f32 networks (a GPU's own arithmetic): a first try of the int8
    // copies on SwiftShader's WebGPU once failed in a DequantizeLinear of an int32 bias ("no zero point").
    const tries = [];
    for (const candidate of [...new Set([models.precision, "f32"])]) {
      try {
        sessions = await open(candidate, ["webgpu", "wasm"]);   // nodes WebGPU cannot run fall back to WebAssembly inside the session
        backend = "webgpu"; precision = candidate;
        break;
      } catch (error) {
        tries.push(`${candidate}: ${String((error && error.message) || error).slice(0, 200)}`);
      }
    }
    if (!sessions) webgpu = "WebGPU could not run the models (" + tries.join("; ") + ")";
  }
  if (!sessions) sessions = await open(models.precision, ["wasm"]);
  const [detector, classifier] = sessions;
  const detectorInput = detector.inputNames[0], classifierInput = classifier.inputNames[0];
  embedding = classifier.outputNames.includes("embedding");
  const probabilitiesName = classifier.outputNames.find((name) => name !== "embedding");
  const detect = async (tensor) => {
    const began = performance.now();
    const outputs = await detector.run({ [detectorInput]: new ort.Tensor("float32", tensor, [1, 3, size, size]) });
    const output = outputs[detector.outputNames[0]];
    spent.detect += performance.now() - began;
    return { data: output.data, dims: output.dims };
  };
  // The server serves the classifier with a free batch dimension where it can (web_ui/models.py): every crop
  // of a frame in one run, as companion.vision classifies them, instead of one run each.
  const batch = await takesBatches(ort, classifier, classifierInput, crop);
  const classifyRun = async (tensor, count) => {
    const outputs = await classifier.run({ [classifierInput]: new ort.Tensor("float32", tensor, [count, 3, crop, crop]) });
    const probabilities = outputs[probabilitiesName].data, classes = probabilities.length / count;
    const features = embedding ? outputs.embedding.data : null, dim = features ? features.length / count : 0;
    return Array.from({ length: count }, (_, k) => ({ probabilities: probabilities.subarray(k * classes, (k + 1) * classes),
      embedding: features ? features.subarray(k * dim, (k + 1) * dim) : null }));
  };
  const classify = async (tensor, count) => {
    const began = performance.now(), plane = 3 * crop * crop, out = [];
    if (batch) out.push(...(await classifyRun(tensor, count)));
    else for (let k = 0; k < count; k++) out.push(...(await classifyRun(tensor.slice(k * plane, (k + 1) * plane), 1)));
    spent.classify += performance.now() - began;
    return out;
  };
  makeReader = (profile) => self.ReaderCore.makeReader(models, detect, classify, profile ? self.ReaderCore.makeDeck(profile) : null);
  useDeck(deck);
  return { backend, precision, threads, version: ort.env.versions && ort.env.versions.web, deck: deck ? deck.deck : null, embedding,
    webgpu: webgpu === null ? "used" : webgpu, batch, isolated: Boolean(self.crossOriginIsolated) };
}

/** Whether the classifier's session takes several crops in one run (a free batch dimension), tried on two blank crops. */
async function takesBatches(ort, session, input, crop) {
  try {
    await session.run({ [input]: new ort.Tensor("float32", new Float32Array(2 * 3 * crop * crop), [2, 3, crop, crop]) });
    return true;
  } catch (error) {
    return false;
  }
}

function useDeck(deck) {
  if (deck && !embedding) throw new Error("the server's classifier gives no embedding (its onnx package is missing): no learned deck here");
  reader = makeReader(deck);
  incremental = self.ReaderCore.makeIncrementalReader(reader);
  return deck ? deck.deck : null;
}

let lastSkin = null;   // the skin share of the last frame that changed

async function read(message) {
  const started = performance.now();   // from the frame's pixels as the page hands them over
  const { width, height } = message;
  spent.detect = spent.classify = 0;
  const indexPx = message.indexPx == null ? null : Number(message.indexPx);
  let image = message.rgb ? { width, height, data: new Uint8Array(message.rgb) } : { width, height, data: new Uint8Array(message.rgba), channels: 4 };
  let reading;
  if (message.whole) {
    if (image.channels === 4) image = self.ReaderCore.fromRGBA(width, height, image.data);
    reading = await reader.read(image, indexPx);
  } else reading = await incremental.read(image, indexPx);
  const ms = performance.now() - started;
  // a hand over the table, judged as the server judges its own frames (skin: /api/models' contract.skin); a frame
  // in which nothing changed (no cell of its grey copy by more than contract.incremental.changed_levels) keeps it
  const skinStarted = performance.now();
  let skin = null;
  if (message.skin) {
    if (reading.work && !reading.work.changed && lastSkin !== null) skin = lastSkin;
    else {
      if (image.channels === 4) image = self.ReaderCore.fromRGBA(width, height, image.data);
      skin = lastSkin = self.ReaderCore.skinFraction(image, message.skin);
    }
  }
  return { ...reading, ms, skin, skin_ms: performance.now() - skinStarted, detect_ms: spent.detect, classify_ms: spent.classify };
}

self.onmessage = async (event) => {
  const message = event.data;
  try {
    if (message.type === "init") self.postMessage({ type: "ready", ...(await init(message.models, message.deck || null, message.backends, message.threads)) });
    else if (message.type === "deck") {
      if (!makeReader) throw new Error("the reader is not ready");
      self.postMessage({ type: "deck", deck: useDeck(message.deck || null) });
    } else if (message.type === "read") {
      if (!reader) throw new Error("the reader is not ready");
      self.postMessage({ type: "read", id: message.id, ...(await read(message)) });
    } else if (message.type === "reset") {
      if (!reader) throw new Error("the reader is not ready");
      incremental = self.ReaderCore.makeIncrementalReader(reader);
      lastSkin = null;
      self.postMessage({ type: "reset", id: message.id });
    }
  } catch (error) {
    self.postMessage({ type: "error", id: message.id, stage: message.type, message: String((error && error.message) || error) });
  }
};
