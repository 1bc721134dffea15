/* The phone's own reader in a worker: onnxruntime-web (vendored by scripts/setup.sh into static/vendor/,
   never fetched from elsewhere) runs the shipped detector and classifier, reader_core.js does everything
   around them as companion.vision does. The page stays responsive while a frame is read.

   Messages in:  {type: "init", models: <GET /api/models>}                    → {type: "ready", backend, threads}
                 {type: "read", id, width, height, rgba | rgb, indexPx, skin} → {type: "read", id, indices, backs, ms, skin}
                 (skin in: contract.skin, to measure the skin share of the frame; out: that share, or null)
   Any failure answers {type: "error", id, stage: "init" | "read", message}. */
"use strict";
importScripts("reader_core.js");

let reader = null;

async function init(models) {
  const runtime = models.runtime;
  if (!runtime) throw new Error("onnxruntime-web is not installed on this server (scripts/setup.sh vendors it)");
  if (typeof WebAssembly !== "object") throw new Error("this browser has no WebAssembly");
  importScripts(runtime.path + "ort.wasm.min.js");
  const ort = self.ort;
  ort.env.wasm.wasmPaths = runtime.path;
  ort.env.wasm.proxy = false;   // this is the worker already
  // Threads need a cross-origin isolated page (the server sends COOP and COEP); otherwise one thread.
  const threads = self.crossOriginIsolated ? Math.max(1, Math.min(4, navigator.hardwareConcurrency || 1)) : 1;
  ort.env.wasm.numThreads = threads;
  const precision = models.precision;
  const session = async (network) => {
    const file = models[network][precision] || models[network].f32;
    const response = await fetch(file.url);
    if (!response.ok) throw new Error(`${file.file}: HTTP ${response.status}`);
    return ort.InferenceSession.create(new Uint8Array(await response.arrayBuffer()),
      { executionProviders: ["wasm"], graphOptimizationLevel: "all" });
  };
  const detector = await session("detector"), classifier = await session("classifier");
  const detectorInput = detector.inputNames[0], classifierInput = classifier.inputNames[0];
  const size = models.detector.imgsz, crop = models.classifier.imgsz;
  const detect = async (tensor) => {
    const outputs = await detector.run({ [detectorInput]: new ort.Tensor("float32", tensor, [1, 3, size, size]) });
    const output = outputs[detector.outputNames[0]];
    return { data: output.data, dims: output.dims };
  };
  const classify = async (tensor) => {
    const outputs = await classifier.run({ [classifierInput]: new ort.Tensor("float32", tensor, [1, 3, crop, crop]) });
    return outputs[classifier.outputNames[0]].data;
  };
  reader = self.ReaderCore.makeReader(models, detect, classify);
  return { backend: "wasm", threads, version: ort.env.versions && ort.env.versions.web };
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
    if (message.type === "init") self.postMessage({ type: "ready", ...(await init(message.models)) });
    else if (message.type === "read") {
      if (!reader) throw new Error("the reader is not ready");
      self.postMessage({ type: "read", id: message.id, ...(await read(message)) });
    }
  } catch (error) {
    self.postMessage({ type: "error", id: message.id, stage: message.type, message: String((error && error.message) || error) });
  }
};
