// "Teach your deck": upload photos, show every card the companion labelled, tap a label to correct it, save.
// No inline script: everything the page does is here (a Content-Security-Policy can forbid inline code).
(function () {
  "use strict";
  const root = document.getElementById("teach-deck");
  if (!root) return;
  const form = document.getElementById("teach-form");
  const status = document.getElementById("teach-status");
  const problems = document.getElementById("teach-problems");
  const photos = document.getElementById("teach-photos");
  const hint = document.getElementById("teach-hint");
  const saveButton = document.getElementById("save-button");
  const sureness = document.getElementById("teach-sureness");
  const askedBox = document.getElementById("teach-asked");
  const askedCards = document.getElementById("teach-asked-cards");
  const codePattern = /^(10|[2-9AJQK])[SHDC]$|^(BJ|SJ)$/;
  let draft = null;
  let corrections = {};

  function say(text) { status.textContent = text; }

  function showProblems(list) {
    problems.replaceChildren(...(list || []).map(function (text) {
      const item = document.createElement("li");
      item.textContent = I18n.render(text);
      return item;
    }));
  }

  // The room a card's label takes ("#53 10H ?" at the label's size, a finger's height): the photo is shown
  // at least large enough that no two labels overlap, at most MAX_PHOTO_PX wide (two readings of one spot).
  const LABEL_W_PX = 72, LABEL_H_PX = 48, MAX_PHOTO_PX = 4000;

  /** Screen pixels per photo pixel that keep the labels (at each card's top-left corner) apart: each pair
      of cards needs to be a label's width apart across, or a label's height apart down. */
  function labelScale(cards, photoWidth) {
    let scale = 0;
    for (let i = 0; i < cards.length; i++) {
      for (let j = i + 1; j < cards.length; j++) {
        const dx = Math.abs(cards[i].box[0] - cards[j].box[0]), dy = Math.abs(cards[i].box[1] - cards[j].box[1]);
        scale = Math.max(scale, Math.min(dx ? LABEL_W_PX / dx : Infinity, dy ? LABEL_H_PX / dy : Infinity));
      }
    }
    return Math.min(scale, MAX_PHOTO_PX / photoWidth);
  }

  function labelText(card, number) {
    const code = corrections[number] || card.code || "?";
    return "#" + number + " " + code + (card.sure || corrections[number] ? "" : " ?");   // card codes: the same in every language
  }

  // Name card #number (every label showing it, on its photo and among the asked cards, is updated).
  function ask(card, number) {
    const answer = window.prompt(_("Which card is #%(number)s? (e.g. 10H, QS, BJ; empty to undo)", { number: number }),
                                 corrections[number] || card.code || "");
    if (answer === null) return;
    const code = answer.trim().toUpperCase();
    if (!code) { delete corrections[number]; }
    else if (!codePattern.test(code)) { say(_("%(code)s is not a card code (e.g. AS, 10H, QD, BJ)", { code: code })); return; }
    else { corrections[number] = code; }
    (labels[number] || []).forEach(function (label) {
      label.textContent = labelText(card, number);
      label.classList.toggle("unsure", !(card.sure || corrections[number]));
    });
  }

  let labels = {};   // card number -> the buttons showing it
  function showing(number, label) { (labels[number] = labels[number] || []).push(label); }

  // The cards it cannot place, each as a picture cut from the photo, to name one by one.
  function showAsked(result) {
    const asked = result.asked || [];
    askedBox.hidden = asked.length === 0;
    askedCards.replaceChildren(...asked.map(function (number) {
      const card = result.cards[number];
      const figure = document.createElement("figure");
      const image = document.createElement("img");
      image.src = root.dataset.draftsUrl + "/" + draft + "/card/" + number;
      image.alt = _("card #%(number)s", { number: number });
      const button = document.createElement("button");
      button.type = "button";
      button.className = "card-label unsure";
      button.textContent = labelText(card, number);
      button.addEventListener("click", function () { ask(card, number); });
      showing(number, button);
      figure.append(image, button);
      return figure;
    }));
    sureness.hidden = !result.sureness;
    if (result.sureness) sureness.textContent = I18n.render(result.sureness);
  }

  function show(result) {
    photos.replaceChildren();
    labels = {};
    result.photos.forEach(function (name, photoIndex) {
      const [width, height] = result.photo_sizes[photoIndex];
      const figure = document.createElement("figure");
      figure.className = "deck-photo";
      const frame = document.createElement("div");
      frame.className = "deck-photo-frame";
      const image = document.createElement("img");
      image.src = root.dataset.draftsUrl + "/" + draft + "/photo/" + photoIndex;
      image.alt = name;
      frame.appendChild(image);
      frame.style.width = "max(100%, " + Math.ceil(width * labelScale(result.cards.filter((card) => card.photo === photoIndex), width)) + "px)";
      result.cards.forEach(function (card, number) {
        if (card.photo !== photoIndex) return;
        const label = document.createElement("button");
        label.type = "button";
        label.className = "card-label" + (card.sure ? "" : " unsure");
        label.style.left = (100 * card.box[0] / width) + "%";
        label.style.top = (100 * card.box[1] / height) + "%";
        label.textContent = labelText(card, number);
        label.title = _("tap to name this card (the classifier thought: %(guesses)s)", { guesses: I18n.list(card.guesses) });
        label.addEventListener("click", function () { ask(card, number); });
        showing(number, label);
        frame.appendChild(label);
      });
      const caption = document.createElement("figcaption");
      caption.textContent = name;
      figure.append(frame, caption);
      photos.appendChild(figure);
    });
    showAsked(result);
    hint.hidden = false;
    saveButton.hidden = false;
  }

  // Came from a table's page (?table=ID): once saved, that table may read with the new deck. The referee's
  // key is the one this phone keeps for the table (app.js stores it); without it the server says 403.
  function offerToTable(name) {
    const useBox = document.getElementById("use-deck");
    if (!root.dataset.table || !useBox) return;
    useBox.hidden = false;
    const button = document.getElementById("use-deck-button");
    button.onclick = async function () {
      const key = localStorage.getItem("companion-pin:" + root.dataset.table) || "";
      const response = await fetch(root.dataset.deckUrl, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Referee-Pin": key, "Idempotency-Key": "deck-" + Date.now().toString(36) },
        body: JSON.stringify({ deck: name })
      }).catch(function () { return null; });
      const data = response ? await response.json().catch(function () { return {}; }) : {};
      if (response && response.ok) { say(_("Table %(code)s now reads with the deck %(deck)s.", { code: root.dataset.table, deck: name })); button.disabled = true; return; }
      say(response && response.status === 403
        ? _("Only the table's referee can choose its deck: open the table as its referee on this phone first.")
        : (data.error || _("no connection to the server")));
    };
  }

  // A phone's camera takes 12-50 megapixel photos (3-8 MB each); the server takes 4 MB a request. The
  // deck learner needs far less: a whole deck in a 2048 px photo shows each index 30-40 px tall (its
  // check learns from 1600 px photos), so each photo is sent at most that large, as JPEG.
  const SEND_LONG_SIDE_PX = 2048;
  const SEND_JPEG_QUALITY = 0.9;

  async function shrunk(file) {
    let bitmap;
    try { bitmap = await createImageBitmap(file); } catch (error) { return file; }  // the server names what is wrong with it
    const scale = Math.min(1, SEND_LONG_SIDE_PX / Math.max(bitmap.width, bitmap.height));
    if (scale === 1 && file.type === "image/jpeg") { bitmap.close(); return file; }
    const canvas = document.createElement("canvas");
    canvas.width = Math.round(bitmap.width * scale);
    canvas.height = Math.round(bitmap.height * scale);
    canvas.getContext("2d").drawImage(bitmap, 0, 0, canvas.width, canvas.height);
    bitmap.close();
    const blob = await new Promise(function (resolve) { canvas.toBlob(resolve, "image/jpeg", SEND_JPEG_QUALITY); });
    return blob ? new File([blob], file.name.replace(/\.[^.]*$/, "") + ".jpg", { type: "image/jpeg" }) : file;
  }

  async function formToSend() {
    const body = new FormData();
    for (const [key, value] of new FormData(form).entries()) {
      body.append(key, value instanceof File && key === "photos" ? await shrunk(value) : value);
    }
    return body;
  }

  form.addEventListener("submit", async function (event) {
    event.preventDefault();
    say(_("Reading the cards…"));
    corrections = {};
    const response = await fetch(root.dataset.draftsUrl, { method: "POST", body: await formToSend() });
    const result = await response.json();
    if (!response.ok) { say(result.error || _("that did not work")); return; }
    draft = result.draft;
    say(result.complete ? ngettext("%(n)d card found: every card placed surely.", "%(n)d cards found: every card placed surely.", result.cards.length)
      : ngettext("%(n)d card found", "%(n)d cards found", result.cards.length));
    showProblems((result.problems || []).concat(result.notes || []));
    show(result);
  });

  saveButton.addEventListener("click", async function () {
    if (!draft) return;
    say(_("Learning the deck…"));
    const response = await fetch(root.dataset.draftsUrl + "/" + draft + "/save", {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ corrections: corrections })
    });
    const result = await response.json();
    if (response.ok && result.saved) {
      say(_("Saved the deck %(deck)s. A table can now read with it.", { deck: result.name }));
      showProblems(result.notes || []);
      saveButton.hidden = true;
      const item = document.createElement("li");
      item.textContent = result.name;
      document.getElementById("deck-list").appendChild(item);
      offerToTable(result.name);
      return;
    }
    say(result.error || _("Not saved yet: see what is missing below."));
    if (result.problems) { showProblems(result.problems); show(result); }
  });
})();
