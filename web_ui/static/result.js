/* The result page's two actions that need a script. Print it: the browser's "Save as PDF" makes the PDF,
   offline; the print styles in style.css leave out the top bar and the buttons, and every folded section is
   opened first, so the PDF holds the whole account. Save the picture as PNG: the server's SVG picture drawn
   on a canvas in this browser (messaging apps take PNG more often than SVG); nothing leaves the phone. */
"use strict";
(() => {
  const button = document.getElementById("print-result");
  window.addEventListener("beforeprint", () => document.querySelectorAll("#result details").forEach((d) => { d.open = true; }));
  if (button) button.addEventListener("click", () => window.print());

  const png = document.getElementById("save-png");
  const svgLink = document.getElementById("save-picture");
  if (!png || !svgLink) return;
  png.hidden = false;
  png.addEventListener("click", async () => {
    const text = await (await fetch(svgLink.href.replace(/[?&]download=1/, ""))).text();
    const url = URL.createObjectURL(new Blob([text], { type: "image/svg+xml" }));
    const image = new Image();
    image.onload = () => {
      const canvas = document.createElement("canvas");
      canvas.width = image.naturalWidth;
      canvas.height = image.naturalHeight;
      const context = canvas.getContext("2d");
      context.fillStyle = "#ffffff";
      context.fillRect(0, 0, canvas.width, canvas.height);
      context.drawImage(image, 0, 0);
      URL.revokeObjectURL(url);
      canvas.toBlob((blob) => {
        const link = document.createElement("a");
        link.href = URL.createObjectURL(blob);
        link.download = png.dataset.filename;
        document.body.append(link);
        link.click();
        link.remove();
      }, "image/png");
    };
    image.src = url;
  });
})();
