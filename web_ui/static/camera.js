/* Camera dialog: watch the table camera's latest frame, or make this phone the camera.
   getUserMedia needs a secure page (HTTPS, or localhost): start the server with --https. */
"use strict";
window.Camera = (() => {
  const $ = (id) => document.getElementById(id);
  let stream = null, timer = null, viewTimer = null;

  function init(ctx, apiUrl, getPin) {
    const view = $("camera-view"), video = $("camera-video"), status = $("camera-status");

    async function showStatus() {
      const response = await fetch(apiUrl + "/camera", { cache: "no-store" });
      if (!response.ok) return;
      const data = await response.json();
      $("camera-server").hidden = !data.server_camera || !ctx.isReferee();
      $("camera-phone").hidden = !ctx.isReferee();
      const f = data.feed;
      $("camera-feed").textContent = f ? f.source + ": " + f.frames + " frames, " + f.camera_events + " camera events" +
        (f.overruled_by_referee ? ", " + f.overruled_by_referee + " overruled by the referee" : "") + (f.error ? " · " + f.error : "") +
        (f.questions.length ? " · last question: " + f.questions[f.questions.length - 1] : "") : "No camera is watching this table.";
    }

    function showLatest() {
      showStatus();
      const probe = new Image();
      probe.onload = () => { view.src = probe.src; view.hidden = false; };
      probe.onerror = () => { if (view.hidden) status.textContent = "No camera frame yet."; };
      probe.src = apiUrl + "/frame.jpg?t=" + Date.now();
    }

    $("camera-open").addEventListener("click", () => {
      $("camera-dialog").showModal();
      showLatest();
      clearInterval(viewTimer);
      viewTimer = setInterval(showLatest, 1000);
    });
    $("camera-close").addEventListener("click", () => { clearInterval(viewTimer); $("camera-dialog").close(); });
    $("camera-dialog").addEventListener("close", () => clearInterval(viewTimer));

    $("camera-phone").addEventListener("click", async () => {
      if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
        status.textContent = "This page cannot use the camera: open it over HTTPS (companion serve --https).";
        return;
      }
      try {
        stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: "environment", width: { ideal: 1280 } }, audio: false });
      } catch (error) {
        status.textContent = "Camera refused: " + error.message;
        return;
      }
      video.srcObject = stream; video.hidden = false; await video.play();
      $("camera-stop").hidden = false;
      const canvas = document.createElement("canvas");
      let busy = false;
      timer = setInterval(async () => {
        if (busy || !video.videoWidth) return;
        busy = true;
        canvas.width = video.videoWidth; canvas.height = video.videoHeight;
        canvas.getContext("2d").drawImage(video, 0, 0);
        const blob = await new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", 0.8));
        try {
          const response = await fetch(apiUrl + "/frames", { method: "POST", headers: { "Content-Type": "image/jpeg", "X-Referee-Pin": getPin() || "" }, body: blob });
          const data = await response.json().catch(() => ({}));
          status.textContent = response.ok ? "Sending frames… (" + data.width + "×" + data.height + ")" : "Frame refused: " + (data.error || response.status);
        } finally { busy = false; }
      }, 700);
    });
    $("camera-server").addEventListener("click", async () => {
      const response = await fetch(apiUrl + "/camera", { method: "POST", headers: { "Content-Type": "application/json", "X-Referee-Pin": getPin() || "" }, body: JSON.stringify({ use: "server" }) });
      const data = await response.json().catch(() => ({}));
      status.textContent = response.ok ? "The server camera now watches this table." : "Server camera: " + (data.error || response.status);
      showLatest();
    });
    $("camera-stop").addEventListener("click", () => {
      clearInterval(timer);
      if (stream) stream.getTracks().forEach((t) => t.stop());
      stream = null; video.hidden = true; $("camera-stop").hidden = true;
    });
  }
  return { init };
})();
