/* The phone's own reader in a worker: onnxruntime-web (vendored by scripts/setup.sh into static/vendor/,
   never fetched from elsewhere) runs the shipped detector and classifier, reader_core.js does everything
   around them as companion.vision does. The page stays responsive while a frame is read.

   The networks run on WebGPU where the browser gives an adapter (and the server vendored the WebGPU build),
   else, or when WebGPU fails to take them, on WebAssembly (SIMD; threads where the page is cross-origin
   isolated). ``backend`` in the answer says which.

   Messages in:  {type: "init", models: <GET /api/models>, deck: <profile> | null, backends?}
                                                                  → {type: "ready", backend, precision, threads, deck, embedding, webgpu}
                 {type: "deck", deck: <GET /api/tables/<id>/deck/profile> | null}  → {type: "deck", deck}
                 {type: "read", id, width, height, rgba | rgb, indexPx, skin}      → {type: "read", id, indices, backs, ms, skin}
                 (skin in: contract.skin, to measure the skin share of the frame; out: that share, or null)
   Any failure answers {type: "error", id, stage: "init" | "deck" | "read", message}. */
"use strict";
importScripts("reader_core.js");

let reader = null, makeReader = null, embedding = false;

/** Whether this browser gives WebGPU an adapter (headless browsers and many phones do not), and why not. */
async function webgpuAdapter() {
  if (!self.navigator || !navigator.gpu) return "no navigator.gpu";
  try {
    return (await navigator.gpu.requestAdapter()) ? null : "no WebGPU adapter";
  } catch (error) {
    return String((error && error.message) || error);
  }
}

async function init(models, deck, backends) {
  const runtime = models.runtime;
  if (!runtime) throw new Error("onnxruntime-web is not installed on this server (scripts/setup.sh vendors it)");
  if (typeof WebAssembly !== "object") throw new Error("this browser has no WebAssembly");
  const wanted = backends || ["webgpu", "wasm"];
  let webgpu = !wanted.includes("webgpu") ? "not asked" : !runtime.webgpu ? "the server has no WebGPU build of the runtime"
    : await webgpuAdapter();
  // The WebGPU build also runs WebAssembly (its own .jsep files): one runtime whichever backend the sessions get.
  importScripts(runtime.path + (webgpu === null ? "ort.webgpu.min.js" : "ort.wasm.min.js"));
  const ort = self.ort;
  ort.env.wasm.wasmPaths = runtime.path;
  ort.env.wasm.proxy = false;   // this is the worker already
  // Threads need a cross-origin isolated page (the server sends COOP and COEP); otherwise one thread.
  const threads = self.crossOriginIsolated ? Math.max(1, Math.min(4, navigator.hardwareConcurrency || 1)) : 1;
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
    const outputs = await detector.run({ [detectorInput]: new ort.Tensor("float32", tensor, [1, 3, size, size]) });
    const output = outputs[detector.outputNames[0]];
    return { data: output.data, dims: output.dims };
  };
  const classify = async (tensor) => {
    const outputs = await classifier.run({ [classifierInput]: new ort.Tensor("float32", tensor, [1, 3, crop, crop]) });
    return { probabilities: outputs[probabilitiesName].data, embedding: embedding ? outputs.embedding.data : null };
  };
  makeReader = (profile) => self.ReaderCore.makeReader(models, detect, classify, profile ? self.ReaderCore.makeDeck(profile) : null);
  useDeck(deck);
  return { backend, precision, threads, version: ort.env.versions && ort.env.versions.web, deck: deck ? deck.deck : null, embedding,
    webgpu: webgpu === null ? "used" : webgpu };
}

function useDeck(deck) {
  if (deck && !embedding) throw new Error("the server's classifier gives no embedding (its onnx package is missing): no learned deck here");
  reader = makeReader(deck);
  return deck ? deck.deck : null;
}

async function read(message) {
  const image = message.rgb ? { width: message.width, height: message.height, data: new Uint8Array(message.rgb) }
    : self.ReaderCore.fromRGBA(message.width, message.height, new Uint8Array(message.rgba));
  const started = performance.now();
  const reading = await reader.read(image, message.indexPx == null ? null : Number(message.indexPx));
  const ms = performance.now() - started;
  // a hand over the table, judged as the server judges its own frames (skin: /api/models' contract.skin)
  const skin = message.skin ? self.ReaderCore.skinFraction(image, message.skin) : null;
  return { ...reading, ms, skin };
}

self.onmessage = async (event) => {
  const message = event.data;
  try {
    if (message.type === "init") self.postMessage({ type: "ready", ...(await init(message.models, message.deck || null, message.backends)) });
    else if (message.type === "deck") {
      if (!makeReader) throw new Error("the reader is not ready");
      self.postMessage({ type: "deck", deck: useDeck(message.deck || null) });
    } else if (message.type === "read") {
      if (!reader) throw new Error("the reader is not ready");
      self.postMessage({ type: "read", id: message.id, ...(await read(message)) });
    }
  } catch (error) {
    self.postMessage({ type: "error", id: message.id, stage: message.type, message: String((error && error.message) || error) });
  }
};
