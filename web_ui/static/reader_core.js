/* The phone's own reader, without the runtime: what companion.vision.Detector.read does around its two
   networks, step for step, so a browser reads a frame into the readings the server would (issue 23).

   Mirrors, each named where it is:
     letterbox            companion/vision/letterbox.py (Letterbox.fit / apply, to_model_input)
     decodeYolo, nms      companion/vision/decode.py
     detectBoxes ...      companion/vision/detector.py (detect_boxes, _closer_look, window_size,
                          tile_starts, _window_boxes, classifier_crop, plausible_turns, best_rotation, read)
   Pixels are resampled as OpenCV does for 8-bit images (cv2.resize INTER_LINEAR's fixed point: 11-bit
   weights; cv2.warpAffine's 1/32-pixel grid and 15-bit weights, edges repeated), because the networks
   see those pixels on the server; numbers the Python reader keeps in float32 are rounded to float32
   here (Math.fround) at the same steps. Every constant (sizes, thresholds, the closer look's) comes from
   GET /api/models ("contract"), none is copied here.

   An image is {width, height, data}: data RGB, 3 bytes a pixel, row after row (the Python reader's BGR
   frame, channels reversed). Works in a worker (self.ReaderCore) and in Node (module.exports). */
"use strict";
(function (root) {
  const f32 = Math.fround;

  /** Python's round(): halves to even (Letterbox.fit, tile_starts and window_size round this way). */
  function pyRound(value) {
    const floor = Math.floor(value), diff = value - floor;
    if (diff > 0.5) return floor + 1;
    if (diff < 0.5) return floor;
    return floor % 2 === 0 ? floor : floor + 1;
  }

  function median(values) {
    const sorted = Float64Array.from(values).sort();
    const mid = sorted.length >> 1;
    return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  }

  /** An RGBA ImageData (canvas, video frame) as the reader's RGB image. */
  function fromRGBA(width, height, rgba) {
    const data = new Uint8Array(width * height * 3);
    for (let i = 0, j = 0; i < data.length; i += 3, j += 4) { data[i] = rgba[j]; data[i + 1] = rgba[j + 1]; data[i + 2] = rgba[j + 2]; }
    return { width, height, data };
  }

  function crop(image, left, top, width, height) {
    width = Math.min(width, image.width - left); height = Math.min(height, image.height - top);   // numpy slicing
    const data = new Uint8Array(width * height * 3);
    for (let y = 0; y < height; y++) {
      const from = ((top + y) * image.width + left) * 3;
      data.set(image.data.subarray(from, from + width * 3), y * width * 3);
    }
    return { width, height, data };
  }

  // -- cv2.resize, INTER_LINEAR, 8-bit (imgproc/resize.cpp): 11-bit fixed-point weights; the horizontal pass
  //    sums exactly, the vertical one rounds as its SIMD loop does (each row >> 4, a 16-bit high multiply,
  //    + 2 >> 2), a row's last few values too (measured: cv2 5.0 gives them the SIMD loop's rounding).
  const RESIZE_COEF_SCALE = 2048;

  function linearTaps(srcSize, dstSize) {
    const scale = 1 / (dstSize / srcSize);
    const offsets = new Int32Array(dstSize), weights = new Int16Array(dstSize * 2);
    for (let d = 0; d < dstSize; d++) {
      let fx = f32((d + 0.5) * scale - 0.5);
      let sx = Math.floor(fx);
      fx = f32(fx - sx);
      if (sx < 0) { fx = 0; sx = 0; }
      if (sx >= srcSize - 1) { fx = 0; sx = srcSize - 1; }
      offsets[d] = sx;
      weights[2 * d] = pyRound(f32(1 - fx) * RESIZE_COEF_SCALE);
      weights[2 * d + 1] = pyRound(fx * RESIZE_COEF_SCALE);
    }
    return { offsets, weights };
  }

  function resizeLinear(image, width, height) {
    const xs = linearTaps(image.width, width), ys = linearTaps(image.height, height);
    const src = image.data, sw = image.width, out = new Uint8Array(width * height * 3), n = width * 3;
    const row0 = new Int32Array(n), row1 = new Int32Array(n);
    const horizontal = (sy, row) => {
      const base = sy * sw * 3;
      for (let d = 0; d < width; d++) {
        const sx = xs.offsets[d], a0 = xs.weights[2 * d], a1 = xs.weights[2 * d + 1];
        const p = base + sx * 3, q = sx + 1 < sw ? p + 3 : p;
        for (let c = 0; c < 3; c++) row[d * 3 + c] = src[p + c] * a0 + src[q + c] * a1;
      }
    };
    for (let y = 0; y < height; y++) {
      const sy = ys.offsets[y], b0 = ys.weights[2 * y], b1 = ys.weights[2 * y + 1];
      horizontal(sy, row0);
      horizontal(Math.min(sy + 1, image.height - 1), row1);
      const o = y * n;
      for (let i = 0; i < n; i++) {
        const v = ((((row0[i] >> 4) * b0) >> 16) + (((row1[i] >> 4) * b1) >> 16) + 2) >> 2;
        out[o + i] = v < 0 ? 0 : v > 255 ? 255 : v;
      }
    }
    return { width, height, data: out };
  }

  // -- letterbox.py ---------------------------------------------------------------------------------
  function fitLetterbox(height, width, target) {
    const gain = Math.min(target / height, target / width);
    const newWidth = Math.max(pyRound(width * gain), 1), newHeight = Math.max(pyRound(height * gain), 1);
    const padW = (target - newWidth) / 2, padH = (target - newHeight) / 2;
    return { sourceHeight: height, sourceWidth: width, target, resizedHeight: newHeight, resizedWidth: newWidth,
      top: pyRound(padH - 0.1), left: pyRound(padW - 0.1),
      gainX: f32(newWidth / width), gainY: f32(newHeight / height) };
  }

  /** The letterboxed image as the network's 1×3×T×T float32 input (RGB / 255, pad value around). */
  function letterboxTensor(image, box, padValue) {
    const resized = image.width === box.resizedWidth && image.height === box.resizedHeight ? image
      : resizeLinear(image, box.resizedWidth, box.resizedHeight);
    const size = box.target, plane = size * size, tensor = new Float32Array(3 * plane);
    tensor.fill(f32(padValue / 255));
    const src = resized.data;
    for (let y = 0; y < resized.height; y++) {
      let p = y * resized.width * 3, o = (y + box.top) * size + box.left;
      for (let x = 0; x < resized.width; x++, p += 3, o++) {
        tensor[o] = src[p] / 255; tensor[plane + o] = src[p + 1] / 255; tensor[2 * plane + o] = src[p + 2] / 255;
      }
    }
    return tensor;
  }

  function boxesToSource(boxes, box) {
    const out = new Float32Array(boxes.length);
    for (let i = 0; i < boxes.length; i += 4) {
      for (const k of [0, 2]) out[i + k] = Math.min(Math.max(f32(f32(boxes[i + k] - box.left) / box.gainX), 0), box.sourceWidth);
      for (const k of [1, 3]) out[i + k] = Math.min(Math.max(f32(f32(boxes[i + k] - box.top) / box.gainY), 0), box.sourceHeight);
    }
    return out;
  }

  // -- decode.py ------------------------------------------------------------------------------------
  /** Greedy NMS, highest score first (ties: the earlier box), dropping IoU above the threshold. */
  function nms(boxes, scores, iouThreshold) {
    const order = Array.from(scores.keys()).sort((a, b) => scores[b] - scores[a] || a - b);
    const keep = [], alive = new Uint8Array(scores.length).fill(1);
    const area = (i) => f32(f32(boxes[4 * i + 2] - boxes[4 * i]) * f32(boxes[4 * i + 3] - boxes[4 * i + 1]));
    for (let n = 0; n < order.length; n++) {
      const best = order[n];
      if (!alive[best]) continue;
      keep.push(best);
      const a = area(best);
      for (let m = n + 1; m < order.length; m++) {
        const other = order[m];
        if (!alive[other]) continue;
        const w = Math.max(f32(Math.min(boxes[4 * best + 2], boxes[4 * other + 2]) - Math.max(boxes[4 * best], boxes[4 * other])), 0);
        const h = Math.max(f32(Math.min(boxes[4 * best + 3], boxes[4 * other + 3]) - Math.max(boxes[4 * best + 1], boxes[4 * other + 1])), 0);
        const inter = f32(w * h);
        const iou = f32(inter / Math.max(f32(f32(a + area(other)) - inter), 1e-9));
        if (iou > iouThreshold) alive[other] = 0;
      }
    }
    return keep;
  }

  /** Raw output [1, 4 + nc, N] → class-wise NMS boxes {boxes (x1 y1 x2 y2), scores, classes}, best first. */
  function decodeYolo(output, dims, conf, iou, maxDet, contract) {
    const channels = dims[1], anchors = dims[2], classesCount = channels - 4;
    let rows = [];
    for (let a = 0; a < anchors; a++) {
      let best = 0, score = output[4 * anchors + a];
      for (let c = 1; c < classesCount; c++) {
        const s = output[(4 + c) * anchors + a];
        if (s > score) { score = s; best = c; }
      }
      if (score > conf) rows.push([a, best, score]);
    }
    if (rows.length > contract.max_nms) rows = rows.map((r, i) => [r, i]).sort((x, y) => y[0][2] - x[0][2] || x[1] - y[1]).slice(0, contract.max_nms).map((x) => x[0]);
    const boxes = new Float32Array(rows.length * 4), shifted = new Float32Array(rows.length * 4), scores = new Float32Array(rows.length);
    rows.forEach(([a, cls, score], i) => {
      const cx = output[a], cy = output[anchors + a], w = output[2 * anchors + a], h = output[3 * anchors + a];
      boxes[4 * i] = f32(cx - f32(w / 2)); boxes[4 * i + 1] = f32(cy - f32(h / 2));
      boxes[4 * i + 2] = f32(cx + f32(w / 2)); boxes[4 * i + 3] = f32(cy + f32(h / 2));
      for (let k = 0; k < 4; k++) shifted[4 * i + k] = f32(boxes[4 * i + k] + cls * contract.class_offset);
      scores[i] = score;
    });
    const kept = nms(shifted, scores, iou).slice(0, maxDet);
    return pick({ boxes, scores, classes: Int32Array.from(rows, (r) => r[1]) }, kept);
  }

  function pick(raw, indices) {
    const boxes = new Float32Array(indices.length * 4);
    indices.forEach((i, n) => boxes.set(raw.boxes.subarray(4 * i, 4 * i + 4), 4 * n));
    return { boxes, scores: Float32Array.from(indices, (i) => raw.scores[i]), classes: Int32Array.from(indices, (i) => raw.classes[i]) };
  }

  function concatRaw(parts) {
    const count = parts.reduce((n, p) => n + p.scores.length, 0);
    const out = { boxes: new Float32Array(count * 4), scores: new Float32Array(count), classes: new Int32Array(count) };
    let at = 0;
    for (const p of parts) { out.boxes.set(p.boxes, 4 * at); out.scores.set(p.scores, at); out.classes.set(p.classes, at); at += p.scores.length; }
    return out;
  }

  // -- detector.py ----------------------------------------------------------------------------------
  function tileStarts(length, size) {
    if (length <= size) return [0];
    const overlap = Math.floor(size / 4);
    const count = Math.ceil((length - overlap) / (size - overlap));
    const step = (length - size) / (count - 1);
    return Array.from({ length: count }, (_, n) => pyRound(n * step));
  }

  function plausibleTurns(box, contract) {
    const width = box[2] - box[0], height = box[3] - box[1];
    if (height >= contract.oriented_aspect * width) return [0, 180];
    if (width >= contract.oriented_aspect * height) return [90, 270];
    return contract.rotations;
  }

  // -- cv2.warpAffine, INTER_LINEAR, BORDER_REPLICATE, 8-bit, as OpenCV 5 computes it (imgproc/warp_kernels):
  //    the inverse map in float32, each source position's fraction, two horizontal then one vertical
  //    interpolation in float32 (a + t·(b − a)), rounded half to even. classifier_crop's map is an
  //    axis-aligned scale and shift (INTER_AREA falls back to this for a warp).
  // The multiply-adds round once: OpenCV's AVX2 build (the x86-64 servers') runs them as FMA. Measured against
  // cv2.warpAffine of opencv-python-headless 5.0 on 140 crops of 7 frames: 139 identical, one with one value 1 off
  // (rounding them twice: 13 of 140 crops off by 1).
  let FUSED = true;
  function madd(a, b, c) { return FUSED ? f32(a * b + c) : f32(f32(a * b) + c); }

  function classifierCrop(image, box, size, expand) {
    let [x1, y1, x2, y2] = box.map(Number);
    const width = x2 - x1, height = y2 - y1;
    if (!(width > 0 && height > 0)) throw new Error("cannot crop an empty box");
    x1 = f32(x1 - expand * width); x2 = f32(x2 + expand * width);
    y1 = f32(y1 - expand * height); y2 = f32(y2 + expand * height);
    // getAffineTransform's map inverted (warpAffine), each entry cast to float32
    const m0 = f32((x2 - x1) / size), m2 = x1, m4 = f32((y2 - y1) / size), m5 = y1;
    const out = new Uint8Array(size * size * 3), src = image.data, w = image.width, h = image.height;
    const clampX = (x) => (x < 0 ? 0 : x >= w ? w - 1 : x), clampY = (y) => (y < 0 ? 0 : y >= h ? h - 1 : y);
    for (let v = 0; v < size; v++) {
      const sy = f32(f32(v * m4) + m5), iy = Math.floor(sy), beta = f32(sy - iy);
      const ry0 = clampY(iy), ry1 = clampY(iy + 1);
      for (let u = 0; u < size; u++) {
        const sx = madd(m0, u, m2), ix = Math.floor(sx), alpha = f32(sx - ix);
        const rx0 = clampX(ix), rx1 = clampX(ix + 1);
        const p00 = (ry0 * w + rx0) * 3, p01 = (ry0 * w + rx1) * 3, p10 = (ry1 * w + rx0) * 3, p11 = (ry1 * w + rx1) * 3;
        const o = (v * size + u) * 3;
        for (let c = 0; c < 3; c++) {
          const top = madd(alpha, src[p01 + c] - src[p00 + c], src[p00 + c]);
          const bottom = madd(alpha, src[p11 + c] - src[p10 + c], src[p10 + c]);
          const value = pyRound(madd(beta, f32(bottom - top), top));
          out[o + c] = value < 0 ? 0 : value > 255 ? 255 : value;
        }
      }
    }
    return { width: size, height: size, data: out };
  }

  /** The crop turned clockwise by ``turn`` degrees (cv2.rotate), into a 3×S×S float32 tensor at ``into``. */
  function cropTensor(cropped, turn, tensor, offset) {
    const s = cropped.width, plane = s * s, src = cropped.data;
    for (let y = 0; y < s; y++) {
      for (let x = 0; x < s; x++) {
        // output (x, y) of a clockwise turn by 90 shows source (y, s-1-x); by 180 (s-1-x, s-1-y); by 270 (s-1-y, x)
        let sx = x, sy = y;
        if (turn === 90) { sx = y; sy = s - 1 - x; } else if (turn === 180) { sx = s - 1 - x; sy = s - 1 - y; } else if (turn === 270) { sx = s - 1 - y; sy = x; }
        const p = (sy * s + sx) * 3, o = offset + y * s + x;
        tensor[o] = src[p] / 255; tensor[plane + o] = src[p + 1] / 255; tensor[2 * plane + o] = src[p + 2] / 255;
      }
    }
  }

  function bestRotation(rows, classes, rotations, noneClass) {
    // rows: one probability vector per rotation (null: a turn not tried, which never wins)
    const none = classes.indexOf(noneClass);
    let winner = -1, winnerClass = -1, winnerProb = -Infinity;
    rows.forEach((row, r) => {
      let bestClass = 0, bestProb = -Infinity;
      for (let c = 0; c < classes.length; c++) {
        const p = c === none ? -1 : row === null ? 0 : row[c];
        if (p > bestProb) { bestProb = p; bestClass = c; }
      }
      if (bestProb > winnerProb) { winnerProb = bestProb; winnerClass = bestClass; winner = r; }
    });
    const noneProb = rows[winner] === null ? 0 : rows[winner][none];
    if (noneProb >= winnerProb) return [null, noneProb, rotations[winner]];
    return [classes[winnerClass], winnerProb, rotations[winner]];
  }

  // -- cv2.cvtColor(BGR2HSV), 8-bit (imgproc/color_hsv): 12-bit fixed-point division tables; hue 0-180.
  const HSV_SHIFT = 12;
  let hsvTables = null;
  function hsvTablesFor() {
    if (!hsvTables) {
      const sdiv = new Int32Array(256), hdiv = new Int32Array(256);
      for (let i = 1; i < 256; i++) { sdiv[i] = pyRound((255 << HSV_SHIFT) / i); hdiv[i] = pyRound((180 << HSV_SHIFT) / (6 * i)); }
      hsvTables = { sdiv, hdiv };
    }
    return hsvTables;
  }

  /** One RGB pixel's 8-bit HSV as cv2 computes it: [h (0-180), s, v]. */
  function hsv(r, g, b) {
    const { sdiv, hdiv } = hsvTablesFor();
    const v = Math.max(r, g, b), diff = v - Math.min(r, g, b);
    const vr = v === r ? -1 : 0, vg = v === g ? -1 : 0;
    const s = (diff * sdiv[v] + (1 << (HSV_SHIFT - 1))) >> HSV_SHIFT;
    let h = (vr & (g - b)) + (~vr & ((vg & (b - r + 2 * diff)) + (~vg & (r - g + 4 * diff))));
    h = (h * hdiv[diff] + (1 << (HSV_SHIFT - 1))) >> HSV_SHIFT;
    if (h < 0) h += 180;
    return [h, s, v];
  }

  // -- cv2.cvtColor(BGR2LAB), 8-bit sRGB (imgproc/color_lab): gamma and cube-root tables, 12/15-bit fixed point.
  const LAB_SHIFT = 12, GAMMA_SHIFT = 3, LAB_SHIFT2 = LAB_SHIFT + GAMMA_SHIFT;
  let labTables = null;
  function labTablesFor() {
    if (!labTables) {
      const gamma = new Uint16Array(256), cbrt = new Uint16Array(256 * 3 / 2 * (1 << GAMMA_SHIFT));
      for (let i = 0; i < 256; i++) {
        const x = f32(i / 255);
        const linear = x <= 0.04045 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4);
        gamma[i] = pyRound(255 * (1 << GAMMA_SHIFT) * f32(linear));
      }
      const scale = 1 / (255 * (1 << GAMMA_SHIFT));
      for (let i = 0; i < cbrt.length; i++) {
        const x = scale * i;
        cbrt[i] = pyRound((1 << LAB_SHIFT2) * f32(x < 0.008856 ? x * 7.787 + 16 / 116 : Math.cbrt(x)));
      }
      const xyz = [0.412453, 0.357580, 0.180423, 0.212671, 0.715160, 0.072169, 0.019334, 0.119193, 0.950227];
      const white = [0.950456, 1, 1.088754], coeffs = new Int32Array(9);
      for (let i = 0; i < 9; i++) coeffs[i] = pyRound((1 << LAB_SHIFT) * xyz[i] / white[Math.floor(i / 3)]);
      labTables = { gamma, cbrt, coeffs };
    }
    return labTables;
  }
  const descale = (x, n) => (x + (1 << (n - 1))) >> n;
  const clampByte = (v) => (v < 0 ? 0 : v > 255 ? 255 : v);

  /** One RGB pixel's 8-bit Lab as cv2 computes it: [L (0-255), a + 128, b + 128]. */
  function lab(r, g, b) {
    const { gamma, cbrt, coeffs: c } = labTablesFor();
    const R = gamma[r], G = gamma[g], B = gamma[b];
    const fX = cbrt[descale(R * c[0] + G * c[1] + B * c[2], LAB_SHIFT)];
    const fY = cbrt[descale(R * c[3] + G * c[4] + B * c[5], LAB_SHIFT)];
    const fZ = cbrt[descale(R * c[6] + G * c[7] + B * c[8], LAB_SHIFT)];
    const L = descale(296 * fY - 1336934, LAB_SHIFT2);   // (116·255 + 50) / 100, (16·255·2^15 + 50) / 100
    const A = descale(500 * (fX - fY) + 128 * (1 << LAB_SHIFT2), LAB_SHIFT2);
    const Bb = descale(200 * (fY - fZ) + 128 * (1 << LAB_SHIFT2), LAB_SHIFT2);
    return [clampByte(L), clampByte(A), clampByte(Bb)];
  }

  // -- companion/vision/ink.py: an index crop's ink colours (hue bins of coloured ink, one bin of black) ----
  /** numpy.percentile's default ("linear") of the values. */
  function percentile(values, q) {
    const sorted = Float64Array.from(values).sort(), n = sorted.length;
    const virtual = n * q + (1 + q * (1 - 1 - 1)) - 1;
    const below = Math.max(0, Math.min(n - 1, Math.floor(virtual))), above = Math.min(n - 1, below + 1);
    const t = virtual - Math.floor(virtual), a = sorted[below], b = sorted[above], diff = b - a;
    return t >= 0.5 ? b - diff * (1 - t) : a + diff * t;
  }

  const DEGREES = f32(f32(180) / f32(Math.PI));   // numpy's float32 degrees()

  function inkColours(cropped, ink) {
    const bins = ink.hue_bins, pixels = cropped.width * cropped.height, src = cropped.data;
    const L = new Uint8Array(pixels), A = new Int16Array(pixels), B = new Int16Array(pixels);
    for (let i = 0, p = 0; i < pixels; i++, p += 3) {
      const [l, a, b] = lab(src[p], src[p + 1], src[p + 2]);
      L[i] = l; A[i] = a - 128; B[i] = b - 128;
    }
    const paper = percentile(L, 0.9), minChroma2 = ink.min_chroma * ink.min_chroma;
    const out = new Float32Array(bins + 1);
    let total = 0, colouredCount = 0;
    for (let i = 0; i < pixels; i++) {
      const coloured = A[i] * A[i] + B[i] * B[i] > minChroma2;   // hypot(a, b) > min chroma, exactly, for integers
      if (!(coloured || L[i] < paper - ink.darker_than_paper)) continue;
      total += 1;
      if (!coloured) continue;
      colouredCount += 1;
      let hue = f32(f32(Math.atan2(B[i], A[i])) * DEGREES);   // rounding float64's atan2 gives numpy's bins for every (a, b)
      if (hue < 0) hue = f32(hue + 360);
      out[Math.min(bins - 1, Math.max(0, Math.floor(f32(hue * bins) / 360)))] += 1;
    }
    if (total === 0) return out;
    out[bins] = total - colouredCount;
    for (let k = 0; k <= bins; k++) out[k] = f32(out[k] / total);
    return out;
  }

  // -- companion/vision/decks/profile.py: back_histogram (cv2.calcHist over HSV), back_distance (Bhattacharyya) ----
  function backHistogram(image, box, back) {
    const [x1, y1, x2, y2] = box.map(Number), w = x2 - x1, h = y2 - y1, m = back.inner_margin;
    const xa = Math.trunc(Math.max(0, x1 + m * w)), ya = Math.trunc(Math.max(0, y1 + m * h));
    const xb = Math.trunc(Math.min(image.width, x2 - m * w)), yb = Math.trunc(Math.min(image.height, y2 - m * h));
    if (xb - xa < 4 || yb - ya < 4) return null;
    const [hueBins, satBins] = back.bins, hueScale = hueBins / 180, satScale = satBins / 256;
    const hist = new Float32Array(hueBins * satBins), src = image.data;
    let total = 0;
    for (let y = ya; y < yb; y++) {
      for (let x = xa, p = (y * image.width + xa) * 3; x < xb; x++, p += 3) {
        const [hue, sat] = hsv(src[p], src[p + 1], src[p + 2]);
        const hb = Math.floor(hue * hueScale), sb = Math.floor(sat * satScale);
        if (hb < 0 || hb >= hueBins || sb < 0 || sb >= satBins) continue;   // calcHist's range leaves hue 180 out
        hist[hb * satBins + sb] += 1; total += 1;
      }
    }
    if (total === 0) return null;
    for (let k = 0; k < hist.length; k++) hist[k] = f32(hist[k] / total);
    return hist;
  }

  function bhattacharyya(a, b) {
    let sum = 0, s1 = 0, s2 = 0;
    for (let k = 0; k < a.length; k++) { sum += Math.sqrt(a[k] * b[k]); s1 += a[k]; s2 += b[k]; }
    const product = s1 * s2, scale = Math.abs(product) > 1.1920928955078125e-7 ? 1 / Math.sqrt(product) : 1;
    return Math.sqrt(Math.max(1 - sum * scale, 0));
  }

  function floats(base64) {
    if (base64 == null) return null;
    const bytes = typeof Buffer !== "undefined" ? Buffer.from(base64, "base64") : Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  }

  /** A learned deck as GET /api/tables/<id>/deck/profile exports it: DeckProfile.read, arbitrate and is_back. */
  function makeDeck(profile) {
    const c = profile.constants, codes = profile.codes, dim = profile.dim, count = codes.length;
    const prototypes = floats(profile.prototypes), colours = floats(profile.colours), back = floats(profile.back);
    if (prototypes.length !== count * dim) throw new Error(`deck ${profile.deck}: ${count} codes but ${prototypes.length} prototype numbers`);
    const deckCodes = c.deck_codes, columns = Int32Array.from(codes, (code) => deckCodes.indexOf(code));
    const inkWidth = c.ink.hue_bins + 1, known = colours && Uint8Array.from(codes, (_, n) => {
      let sum = 0; for (let k = 0; k < inkWidth; k++) sum += colours[n * inkWidth + k]; return sum > 0;
    });
    const temperature = f32(c.similarity_temperature), inkWeight = c.ink_colour_weight;

    /** T embeddings (one per tried turn) and the index's ink → [code or null, confidence, row of the best turn]. */
    function read(embeddings, ink) {
      const rows = embeddings.length, sims = [];
      const useInk = ink && colours && ink.reduce((a, b) => a + b, 0) > 0;
      const penalty = new Float32Array(count);
      if (useInk) {
        for (let n = 0; n < count; n++) {
          if (!known[n]) continue;
          let overlap = 0;
          for (let k = 0; k < inkWidth; k++) overlap = f32(overlap + Math.min(ink[k], colours[n * inkWidth + k]));
          penalty[n] = f32(inkWeight * f32(1 - overlap));
        }
      }
      for (let r = 0; r < rows; r++) {
        const e = embeddings[r];
        let norm = 0;
        for (let k = 0; k < dim; k++) norm += e[k] * e[k];
        norm = Math.max(f32(Math.sqrt(f32(norm))), 1e-9);
        const unit = Float32Array.from(e, (v) => f32(v / norm));
        const best = new Float32Array(deckCodes.length).fill(-1), seen = new Uint8Array(deckCodes.length);
        for (let n = 0; n < count; n++) {
          let dot = 0;
          for (let k = 0, o = n * dim; k < dim; k++, o++) dot += unit[k] * prototypes[o];
          const sim = f32(f32(dot) - penalty[n]), column = columns[n];
          if (!seen[column] || sim > best[column]) { best[column] = sim; seen[column] = 1; }
        }
        sims.push(best);
      }
      let row = 0, column = 0;
      for (let r = 0; r < rows; r++) for (let k = 0; k < deckCodes.length; k++) if (sims[r][k] > sims[row][column]) { row = r; column = k; }
      const top = sims[row][column];
      if (top < profile.none_floor) return [null, 0, row];
      let sum = 0;
      for (let k = 0; k < deckCodes.length; k++) if (sims[row][k] > -1) sum = f32(sum + f32(Math.exp(f32(f32(sims[row][k] - top) / temperature))));
      return [deckCodes[column], 1 / sum, row];
    }

    function arbitrate(general, learned) {
      if (!profile.trusted) learned = [null, 0, learned[2]];
      if (learned[0] !== null) return learned;
      return general[0] !== null && general[1] > c.abstain_confidence ? general : learned;
    }

    function isBack(image, box) {
      if (!back) return true;
      const hist = backHistogram(image, box, c.back);
      return hist !== null && bhattacharyya(hist, back) <= c.back.max_distance;
    }

    return { name: profile.deck, version: profile.version, thresholds: profile.thresholds, ink: c.ink, inkKnown: Boolean(colours), read, arbitrate, isBack };
  }

  /** A reader over two async networks: ``detect(tensor)`` → {data, dims} (1×3×T×T in), ``classify(tensor, n)``
      → n × {probabilities, embedding} (n×3×S×S in, n crops; the embedding: the pooled features, null when the
      model has none). ``models`` is GET /api/models; ``deck`` (makeDeck) a learned deck to read with, as
      Detector.with_deck does (null: the general models). */
  function makeReader(models, detect, classify, deck = null) {
    const contract = models.contract, thresholds = models.thresholds;
    const target = models.detector.imgsz, cropSize = models.classifier.imgsz;
    // float32, as numpy compares its float32 scores and IoUs with them
    const iou = f32(thresholds.iou);
    // As Detector.thresholds(): a frame whose index size the server has not answered (its scale unknown,
    // as a photo's) is read at the photo thresholds, one whose scale is known at models.json's.
    const known = { conf: f32(thresholds.conf), backConf: f32(thresholds.back_conf) };
    let photo = models.photo_thresholds
      ? { conf: f32(models.photo_thresholds.conf), backConf: f32(models.photo_thresholds.back_conf) } : known;
    let maxZoom = contract.max_zoom;
    if (deck) {
      // Detector.with_deck: the deck's thresholds whatever the frame's scale (its prototypes turn away what is no index)
      known.conf = photo.conf = f32(deck.thresholds.conf);
      known.backConf = photo.backConf = f32(deck.thresholds.back_conf);
      photo = known;
      maxZoom = deck.thresholds.max_zoom;
    }
    const INDEX = contract.index_class, BACK = contract.back_class;

    async function detectWindow(image, left, top, frameShape, { conf, backConf }) {
      const box = fitLetterbox(image.height, image.width, target);
      const output = await detect(letterboxTensor(image, box, contract.pad_value));
      const raw = decodeYolo(output.data, output.dims, Math.min(conf, backConf), iou, contract.max_det, contract);
      let boxes = boxesToSource(raw.boxes, box);
      let kept = Array.from(raw.scores.keys());
      if (frameShape) {
        const [frameHeight, frameWidth] = frameShape;
        kept = kept.filter((i) => !((left > 0 && boxes[4 * i] <= 1) || (top > 0 && boxes[4 * i + 1] <= 1) ||
          (left + image.width < frameWidth && boxes[4 * i + 2] >= image.width - 1) ||
          (top + image.height < frameHeight && boxes[4 * i + 3] >= image.height - 1)));
      }
      const out = pick({ boxes, scores: raw.scores, classes: raw.classes }, kept);
      for (let i = 0; i < out.scores.length; i++) {
        out.boxes[4 * i] = f32(out.boxes[4 * i] + left); out.boxes[4 * i + 2] = f32(out.boxes[4 * i + 2] + left);
        out.boxes[4 * i + 1] = f32(out.boxes[4 * i + 1] + top); out.boxes[4 * i + 3] = f32(out.boxes[4 * i + 3] + top);
      }
      return out;
    }

    function measuredIndexPx(whole, conf) {
      const sizes = [];
      for (let i = 0; i < whole.scores.length; i++) {
        if (whole.classes[i] === INDEX && whole.scores[i] > conf) {
          sizes.push(Math.max(f32(whole.boxes[4 * i + 2] - whole.boxes[4 * i]), f32(whole.boxes[4 * i + 3] - whole.boxes[4 * i + 1])));
        }
      }
      return sizes.length ? f32(median(sizes)) : null;   // np.median of float32 sizes is float32
    }

    function windowSize(height, width, whole, indexPx, conf) {
      const longest = Math.max(height, width);
      const px = indexPx != null ? indexPx : measuredIndexPx(whole, conf);
      if (px == null) return null;
      // a photo (no index size told, no learned deck) starts the closer look sooner: detector.PHOTO_TILE_BELOW_PX
      const below = indexPx == null && !deck ? contract.photo_tile_below_px : contract.tile_below_px;
      if (px * target / longest >= below) return null;
      const size = pyRound(target * px / contract.target_index_px);
      return Math.max(size, pyRound(target / maxZoom));
    }

    async function detectBoxes(image, indexPx) {
      const chosen = indexPx != null ? known : photo, { conf, backConf } = chosen;
      const whole = await detectWindow(image, 0, 0, null, chosen);
      const size = windowSize(image.height, image.width, whole, indexPx, conf);
      let raw = whole;
      if (size != null) {
        const backs = Array.from(whole.scores.keys()).filter((i) => whole.classes[i] === BACK);
        const passes = [pick(whole, backs)];
        for (const y of tileStarts(image.height, size)) {
          for (const x of tileStarts(image.width, size)) passes.push(await detectWindow(crop(image, x, y, size, size), x, y, [image.height, image.width], chosen));
        }
        const all = concatRaw(passes), apart = Math.max(image.height, image.width) + 1;
        const shifted = all.boxes.map((v, k) => f32(v + f32(all.classes[k >> 2] * apart)));
        raw = pick(all, nms(shifted, all.scores, iou));
      }
      const keep = Array.from(raw.scores.keys()).filter((i) => (raw.classes[i] === BACK ? raw.scores[i] > backConf : raw.scores[i] > conf));
      return pick(raw, keep);
    }

    /** Each index box read at its plausible turns: [code or null, confidence, turn] each. Every crop × turn
        goes to ``classify`` in one call (as Detector.classify_boxes runs them as one batch). */
    async function classifyBoxes(image, boxes) {
      const classes = models.classifier.classes, rotations = contract.rotations, plane = 3 * cropSize * cropSize;
      if (!boxes.length) return [];
      const crops = [], turns = [];
      for (const box of boxes) {
        crops.push(classifierCrop(image, box, cropSize, models.classifier.crop_expand));
        turns.push(plausibleTurns(box, contract));
      }
      const count = turns.reduce((n, wanted) => n + wanted.length, 0), tensor = new Float32Array(count * plane);
      let at = 0;
      crops.forEach((cropped, k) => { for (const turn of turns[k]) cropTensor(cropped, turn, tensor, plane * at++); });
      const outs = await classify(tensor, count);
      const readings = [];
      at = 0;
      for (let k = 0; k < boxes.length; k++) {
        const rows = rotations.map(() => null), wanted = turns[k], embeddings = [];
        for (const turn of wanted) {
          const out = outs[at++];
          rows[rotations.indexOf(turn)] = out.probabilities;
          embeddings.push(out.embedding);
        }
        const general = bestRotation(rows, classes, rotations, contract.none_class);
        if (!deck) { readings.push(general); continue; }
        // Detector.classify_boxes with a deck: the prototypes' reading over the same turns, arbitrated with the general one
        const [code, confidence, row] = deck.read(embeddings, deck.inkKnown ? inkColours(crops[k], deck.ink) : null);
        readings.push(deck.arbitrate(general, [code, confidence, wanted[row]]));
      }
      return readings;
    }

    const thresholdsFor = (indexPx) => (indexPx != null ? known : photo);
    const isBack = (image, box) => !deck || deck.isBack(image, box);

    /** One frame → {indices: [{box, score, code, code_score, turn}], backs: [{box, score}]} (Detector.read
        before grouping; ``indexPx``: the index size the server answered, null when not known). */
    async function read(image, indexPx) {
      const raw = await detectBoxes(image, indexPx);
      const indexBoxes = [], indexScores = [], backs = [];
      for (let i = 0; i < raw.scores.length; i++) {
        const box = Array.from(raw.boxes.subarray(4 * i, 4 * i + 4));
        if (!(box[2] - box[0] >= 1 && box[3] - box[1] >= 1)) continue;   // squeezed to nothing at the edge
        if (raw.classes[i] === INDEX) { indexBoxes.push(box); indexScores.push(raw.scores[i]); } else if (raw.classes[i] === BACK) backs.push({ box, score: raw.scores[i] });
      }
      const read = await classifyBoxes(image, indexBoxes);
      const kept = backs.filter((b) => isBack(image, b.box));
      const indices = indexBoxes.map((box, k) => ({ box, score: indexScores[k], code: read[k][0], code_score: read[k][1], turn: read[k][2] }));
      return { indices, backs: kept };
    }

    return { read, detectBoxes, classifyBoxes, detectWindow, windowSize, thresholdsFor, isBack, iou, models };
  }

  // -- companion/vision/incremental.py: IncrementalReader, the frame compared with the last one read --------
  //    (cv2.cvtColor BGR2GRAY as OpenCV 5 computes 8-bit grey: 15-bit fixed point, measured identical on random
  //    colours, where the 14-bit weights of OpenCV 4 differ at 1 pixel in 400; cv2.resize INTER_AREA by a whole
  //    ratio: each cell the mean of its block, rounded half to even; the constants from GET /api/models'
  //    contract.incremental)
  const GREY_R = 9798, GREY_G = 19235, GREY_B = 3735, GREY_SHIFT = 15, GREY_HALF = 1 << (GREY_SHIFT - 1);

  /** The frame's grey copy shrunk ``shrink`` times (incremental.py _small): one byte a cell, row after row.
      ``image.channels`` 4: RGBA pixels (a canvas's, as the page hands them over), else RGB. */
  function smallGrey(image, shrink) {
    const sw = image.width, sh = image.height, src = image.data, step = image.channels || 3;
    const width = Math.max(1, Math.floor(sw / shrink)), height = Math.max(1, Math.floor(sh / shrink));
    const out = new Uint8Array(width * height);
    if (sw === width * shrink && sh === height * shrink) {
      // one pass over each row's pixels, each cell's sum built row by row; the mean rounded half to even
      const sums = new Int32Array(width), area = shrink * shrink, half = area >> 1;
      const rowBytes = sw * step;
      for (let y = 0; y < height; y++) {
        sums.fill(0);
        for (let dy = 0; dy < shrink; dy++) {
          let p = (y * shrink + dy) * rowBytes;
          for (let x = 0; x < width; x++) {
            let sum = 0;
            for (let dx = 0; dx < shrink; dx++, p += step) sum += (src[p] * GREY_R + src[p + 1] * GREY_G + src[p + 2] * GREY_B + GREY_HALF) >> GREY_SHIFT;
            sums[x] += sum;
          }
        }
        for (let x = 0, o = y * width; x < width; x++) {
          const sum = sums[x], floor = (sum / area) | 0, rest = sum - floor * area;
          out[o + x] = rest > half || (rest === half && (floor & 1) === 1) ? floor + 1 : floor;
        }
      }
      return { width, height, data: out };
    }
    // not a whole ratio (no phone camera's usual size): cv2's area weights, in float64 (values may differ by one)
    const grey = new Uint8Array(sw * sh);
    for (let i = 0, p = 0; i < grey.length; i++, p += step) grey[i] = (src[p] * GREY_R + src[p + 1] * GREY_G + src[p + 2] * GREY_B + GREY_HALF) >> GREY_SHIFT;
    const fx = sw / width, fy = sh / height;
    for (let y = 0; y < height; y++) {
      const y0 = y * fy, y1 = y0 + fy;
      for (let x = 0; x < width; x++) {
        const x0 = x * fx, x1 = x0 + fx;
        let sum = 0;
        for (let sy = Math.floor(y0); sy < Math.min(sh, Math.ceil(y1)); sy++) {
          const wy = Math.min(y1, sy + 1) - Math.max(y0, sy);
          for (let sx = Math.floor(x0); sx < Math.min(sw, Math.ceil(x1)); sx++) sum += wy * (Math.min(x1, sx + 1) - Math.max(x0, sx)) * grey[sy * sw + sx];
        }
        out[y * width + x] = Math.min(255, pyRound(sum / (fx * fy)));
      }
    }
    return { width, height, data: out };
  }

  /** decode.box_iou of one box (4 numbers) against many (a flat float32 array), in float32. */
  function boxIou(box, boxes) {
    const n = boxes.length / 4, out = new Float32Array(n);
    const area = f32(f32(box[2] - box[0]) * f32(box[3] - box[1]));
    for (let k = 0; k < n; k++) {
      const w = Math.max(f32(Math.min(box[2], boxes[4 * k + 2]) - Math.max(box[0], boxes[4 * k])), 0);
      const h = Math.max(f32(Math.min(box[3], boxes[4 * k + 3]) - Math.max(box[1], boxes[4 * k + 1])), 0);
      const inter = f32(w * h), other = f32(f32(boxes[4 * k + 2] - boxes[4 * k]) * f32(boxes[4 * k + 3] - boxes[4 * k + 1]));
      out[k] = f32(inter / Math.max(f32(f32(area + other) - inter), 1e-9));
    }
    return out;
  }

  /** A reader (makeReader's) that re-reads only what changed since the frames it read before, as
      companion.vision.incremental.IncrementalReader does without a mat's homography (frames compared pixel for
      pixel): nothing changed, the last reading again (no network runs); something changed, the whole-frame
      pass, the closer look's windows the change touches, and the indices that are new, changed or not settled;
      every ``recheck_every``-th frame in full. ``read(image, indexPx)`` → {indices, backs, work}: work says what
      the frame cost ({changed, passes, classified, kept}). ``image`` may be RGBA (``channels`` 4, a canvas's
      pixels): it is compared as it is and made RGB only when something changed (a still frame costs the
      comparison alone). One per camera. */
  function makeIncrementalReader(reader) {
    const models = reader.models, contract = models.contract, c = contract.incremental;
    const INDEX = contract.index_class, BACK = contract.back_class, expand = models.classifier.crop_expand;
    const shrink = c.shrink, sameBoxIou = f32(c.same_box_iou), keepAbove = c.keep_above_confidence;
    let frames = 0, state = null, told;   // told: the index size the state was read at (expecting_index_px)

    const blank = () => ({ shape: null, reference: null, whole: null, windows: new Map(), windowSize: null,
      readings: [], histories: [], backs: [], answer: null, refresh: false, changedFrames: 0, wholeBehind: false });
    state = blank();

    /** Whether any changed cell lies in this frame-pixel rectangle (IncrementalReader._changed_in). */
    function changedIn(changed, width, height, x1, y1, x2, y2) {
      const c1 = Math.max(0, Math.floor(Math.trunc(x1) / shrink)), r1 = Math.max(0, Math.floor(Math.trunc(y1) / shrink));
      const c2 = Math.min(width, Math.ceil(f32(x2 / shrink)) + 1), r2 = Math.min(height, Math.ceil(f32(y2 / shrink)) + 1);
      if (!(c2 > c1 && r2 > r1)) return false;
      for (let r = r1; r < r2; r++) for (let k = r * width + c1, end = r * width + c2; k < end; k++) if (changed[k]) return true;
      return false;
    }

    function settled(reading, history) {
      return reading.code !== null && reading.code_score >= keepAbove && history.length >= c.settled_after_readings
        && history.every((code) => code === reading.code);
    }

    /** The windows' boxes with the whole frame's backs, class-wise NMS, the thresholds (IncrementalReader._merge). */
    function merge(shape, chosen) {
      let raw = state.whole;
      if (state.windowSize !== null) {
        const whole = state.whole, backs = Array.from(whole.scores.keys()).filter((i) => whole.classes[i] === BACK);
        const keys = [...state.windows.keys()].map((k) => k.split(",").map(Number)).sort((a, b) => a[1] - b[1] || a[0] - b[0]);
        const all = concatRaw([pick(whole, backs), ...keys.map(([x, y]) => state.windows.get(`${x},${y}`))]);
        const apart = Math.max(shape[0], shape[1]) + 1;
        const shifted = all.boxes.map((v, k) => f32(v + f32(all.classes[k >> 2] * apart)));
        raw = pick(all, nms(shifted, all.scores, reader.iou));
      }
      const keep = Array.from(raw.scores.keys()).filter((i) => (raw.classes[i] === BACK ? raw.scores[i] > chosen.backConf : raw.scores[i] > chosen.conf));
      return pick(raw, keep);
    }

    async function read(image, indexPx = null) {
      frames += 1;
      if (indexPx !== told) { state = blank(); told = indexPx; }   // the windows change: everything is read anew
      const small = smallGrey(image, shrink), work = { changed: false, passes: 0, classified: 0, kept: 0 };
      const shape = [image.height, image.width];
      if (!state.shape || state.shape[0] !== shape[0] || state.shape[1] !== shape[1]) { state = blank(); state.shape = shape; }
      const first = state.reference === null, cells = small.data.length;
      let changed;
      if (first || frames % c.recheck_every === 0 || state.refresh) {
        state.refresh = false;
        changed = new Uint8Array(cells).fill(1);
        work.changed = true;
      } else {
        changed = new Uint8Array(cells);
        const ref = state.reference.data, now = small.data, levels = c.changed_levels;
        for (let k = 0; k < cells; k++) {
          const d = now[k] - ref[k];
          if (d > levels || -d > levels) { changed[k] = 1; work.changed = true; }
        }
      }
      if (!work.changed && state.answer !== null && !state.wholeBehind) return { ...state.answer, work };
      if (image.channels === 4) image = fromRGBA(image.width, image.height, image.data);
      const chosen = reader.thresholdsFor(indexPx), [height, width] = shape;

      // stage 1: the whole-frame pass, the windows the change touches
      if (work.changed) state.changedFrames += 1;
      if (first || state.whole === null || (state.wholeBehind && !work.changed)
          || (work.changed && (state.changedFrames - 1) % c.whole_pass_every_changed === 0)) {
        state.whole = await reader.detectWindow(image, 0, 0, null, chosen);
        state.wholeBehind = false;
        work.passes += 1;
      } else if (work.changed) state.wholeBehind = true;
      const size = reader.windowSize(height, width, state.whole, indexPx, chosen.conf);
      if (size !== state.windowSize) { state.windows = new Map(); state.windowSize = size; }
      const reread = [];
      if (size !== null) {
        for (const y of tileStarts(height, size)) {
          for (const x of tileStarts(width, size)) {
            if (!state.windows.has(`${x},${y}`) || changedIn(changed, small.width, small.height, x, y, x + size, y + size)) {
              reread.push([x, y]);
              work.passes += 1;
            }
          }
        }
        for (const [x, y] of reread) state.windows.set(`${x},${y}`, await reader.detectWindow(crop(image, x, y, size, size), x, y, shape, chosen));
      }
      const raw = merge(shape, chosen);

      // the reference follows what was read: every re-read region, the whole frame when all was
      if (size === null || first || changed.every((v) => v)) state.reference = small;
      else {
        const ref = state.reference.data, sw = small.width, sh = small.height;
        for (const [x, y] of reread) {
          const r2 = Math.min(sh, Math.floor((y + size) / shrink) + 1), c1 = Math.floor(x / shrink), c2 = Math.min(sw, Math.floor((x + size) / shrink) + 1);
          for (let r = Math.floor(y / shrink); r < r2; r++) ref.set(small.data.subarray(r * sw + c1, r * sw + c2), r * sw + c1);
        }
      }

      // stage 2: classify only the indices that are new or whose pixels changed
      const boxes = [], scores = [], backs = [];
      for (let i = 0; i < raw.scores.length; i++) {
        const box = Array.from(raw.boxes.subarray(4 * i, 4 * i + 4));
        if (!(box[2] - box[0] >= 1 && box[3] - box[1] >= 1)) continue;   // squeezed to nothing at the edge
        if (raw.classes[i] === INDEX) { boxes.push(box); scores.push(raw.scores[i]); } else if (raw.classes[i] === BACK) backs.push({ box, score: raw.scores[i] });
      }
      const previous = new Float32Array(state.readings.length * 4);
      state.readings.forEach((r, k) => previous.set(r.box, 4 * k));
      const kept = new Map(), earlier = new Map();
      for (let n = 0; n < boxes.length && previous.length; n++) {
        const box = boxes[n], overlaps = boxIou(box, previous);
        let best = 0;
        for (let k = 1; k < overlaps.length; k++) if (overlaps[k] > overlaps[best]) best = k;
        if (overlaps[best] < sameBoxIou) continue;   // a new index
        earlier.set(n, state.histories[best]);
        const w = f32(box[2] - box[0]), h = f32(box[3] - box[1]), ew = f32(expand * w), eh = f32(expand * h);
        if (changedIn(changed, small.width, small.height, f32(box[0] - ew), f32(box[1] - eh), f32(box[2] + ew), f32(box[3] + eh))) continue;
        const old = state.readings[best];
        if (settled(old, earlier.get(n))) kept.set(n, { box, score: scores[n], code: old.code, code_score: old.code_score, turn: old.turn });
      }
      const toRead = boxes.map((_, n) => n).filter((n) => !kept.has(n));
      const read = await reader.classifyBoxes(image, toRead.map((n) => boxes[n]));
      const readNow = new Map(toRead.map((n, k) => [n, { box: boxes[n], score: scores[n], code: read[k][0], code_score: read[k][1], turn: read[k][2] }]));
      work.classified = toRead.length; work.kept = kept.size;
      state.readings = boxes.map((_, n) => kept.get(n) || readNow.get(n));
      state.histories = boxes.map((_, n) => (kept.has(n) ? earlier.get(n) || []
        : [...(earlier.get(n) || []), readNow.get(n).code].slice(-c.settled_after_readings)));
      state.backs = backs.filter((b) => reader.isBack(image, b.box));
      state.answer = { indices: state.readings, backs: state.backs };
      return { ...state.answer, work };
    }

    /** Read the next frame in full, whatever changed (IncrementalReader.refresh). */
    function refresh() { state.refresh = true; }

    return { read, refresh, get frames() { return frames; } };
  }

  // -- companion.table.pipeline.skin_fraction: the share of the frame under the largest skin-coloured blob,
  //    a hand over the table. The frame shrunk as cv2.resize INTER_AREA does (exactly at a whole ratio, as
  //    960x720, 1280x720 or 1920x1080 to 160 wide: each pixel the rounded mean of its block; a box average
  //    otherwise), cv2's 8-bit YCrCb (14-bit fixed point), inRange, a 3x3 opening, 8-connected blobs.
  const YUV_SHIFT = 14, YUV_HALF = 1 << (YUV_SHIFT - 1), YUV_DELTA = 128 << YUV_SHIFT;
  const Y_R = 4899, Y_G = 9617, Y_B = 1868, CR_R = 11682, CB_B = 9241;

  function resizeArea(image, width, height) {
    const sw = image.width, sh = image.height, src = image.data, out = new Uint8Array(width * height * 3);
    const fx = sw / width, fy = sh / height;
    if (Number.isInteger(fx) && Number.isInteger(fy)) {
      const area = fx * fy;
      for (let y = 0; y < height; y++) {
        for (let x = 0; x < width; x++) {
          for (let c = 0; c < 3; c++) {
            let sum = 0;
            for (let dy = 0; dy < fy; dy++) {
              let i = ((y * fy + dy) * sw + x * fx) * 3 + c;
              for (let dx = 0; dx < fx; dx++, i += 3) sum += src[i];
            }
            out[(y * width + x) * 3 + c] = Math.min(255, pyRound(sum / area));
          }
        }
      }
      return { width, height, data: out };
    }
    for (let y = 0; y < height; y++) {
      const y0 = y * fy, y1 = y0 + fy;
      for (let x = 0; x < width; x++) {
        const x0 = x * fx, x1 = x0 + fx, sum = [0, 0, 0];
        for (let sy = Math.floor(y0); sy < Math.min(sh, Math.ceil(y1)); sy++) {
          const wy = Math.min(y1, sy + 1) - Math.max(y0, sy);
          for (let sx = Math.floor(x0); sx < Math.min(sw, Math.ceil(x1)); sx++) {
            const w = wy * (Math.min(x1, sx + 1) - Math.max(x0, sx)), i = (sy * sw + sx) * 3;
            sum[0] += w * src[i]; sum[1] += w * src[i + 1]; sum[2] += w * src[i + 2];
          }
        }
        for (let c = 0; c < 3; c++) out[(y * width + x) * 3 + c] = Math.min(255, Math.max(0, pyRound(sum[c] / (fx * fy))));
      }
    }
    return { width, height, data: out };
  }

  function skinMask(image, low, high) {
    const n = image.width * image.height, src = image.data, mask = new Uint8Array(n);
    const clip = (v) => (v < 0 ? 0 : v > 255 ? 255 : v);
    for (let p = 0; p < n; p++) {
      const r = src[3 * p], g = src[3 * p + 1], b = src[3 * p + 2];
      const y = (r * Y_R + g * Y_G + b * Y_B + YUV_HALF) >> YUV_SHIFT;
      const cr = clip(((r - y) * CR_R + YUV_DELTA + YUV_HALF) >> YUV_SHIFT), cb = clip(((b - y) * CB_B + YUV_DELTA + YUV_HALF) >> YUV_SHIFT);
      mask[p] = y >= low[0] && y <= high[0] && cr >= low[1] && cr <= high[1] && cb >= low[2] && cb <= high[2] ? 1 : 0;
    }
    return mask;
  }

  /** cv2's erode (keep = all) or dilate (keep = any) with a 3x3 square; the frame's edge adds nothing. */
  function morph3(mask, width, height, all) {
    const out = new Uint8Array(mask.length);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        let value = all ? 1 : 0;
        for (let dy = -1; dy <= 1; dy++) {
          const yy = y + dy;
          if (yy < 0 || yy >= height) continue;
          for (let dx = -1; dx <= 1; dx++) {
            const xx = x + dx;
            if (xx < 0 || xx >= width) continue;
            const v = mask[yy * width + xx];
            if (all && !v) value = 0; else if (!all && v) value = 1;
          }
        }
        out[y * width + x] = value;
      }
    }
    return out;
  }

  function largestBlob(mask, width, height) {
    const seen = new Uint8Array(mask.length), stack = new Int32Array(mask.length);
    let best = 0;
    for (let start = 0; start < mask.length; start++) {
      if (!mask[start] || seen[start]) continue;
      let top = 0, size = 0;
      stack[top++] = start; seen[start] = 1;
      while (top) {
        const p = stack[--top], x = p % width, y = (p - x) / width;
        size++;
        for (let dy = -1; dy <= 1; dy++) {
          const yy = y + dy;
          if (yy < 0 || yy >= height) continue;
          for (let dx = -1; dx <= 1; dx++) {
            const xx = x + dx, q = yy * width + xx;
            if (xx < 0 || xx >= width || seen[q] || !mask[q]) continue;
            seen[q] = 1; stack[top++] = q;
          }
        }
      }
      best = Math.max(best, size);
    }
    return best;
  }

  /** The share of ``image`` (RGB) under its largest skin-coloured blob; ``skin``: GET /api/models' contract.skin. */
  function skinFraction(image, skin) {
    const width = skin.width, height = Math.max(1, Math.floor(image.height * width / image.width));
    const small = resizeArea(image, width, height);
    const opened = morph3(morph3(skinMask(small, skin.ycrcb_low, skin.ycrcb_high), width, height, true), width, height, false);
    return largestBlob(opened, width, height) / (width * height);
  }

  const api = { pyRound, median, fromRGBA, crop, resizeLinear, fitLetterbox, letterboxTensor, boxesToSource, nms,
    decodeYolo, tileStarts, plausibleTurns, classifierCrop, setFused: (on) => { FUSED = on; }, cropTensor, bestRotation, makeReader,
    hsv, lab, inkColours, backHistogram, bhattacharyya, makeDeck, resizeArea, skinFraction, smallGrey, boxIou, makeIncrementalReader };
  if (typeof module !== "undefined" && module.exports) module.exports = api;
  else root.ReaderCore = api;
})(typeof self !== "undefined" ? self : this);
