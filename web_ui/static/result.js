/* The result page's one action that needs a script: print it (the browser's "Save as PDF" makes the PDF,
   offline; the print styles in style.css leave out the top bar and the buttons). Every folded section is
   opened first, so the PDF holds the whole account, castle by castle. */
"use strict";
(() => {
  const button = document.getElementById("print-result");
  window.addEventListener("beforeprint", () => document.querySelectorAll("#result details").forEach((d) => { d.open = true; }));
  if (button) button.addEventListener("click", () => window.print());
})();
