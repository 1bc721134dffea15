// "Teach your deck": take or choose photos (one per card, or of the whole deck), send them one at a time with
// progress, show every card the companion labelled, tap a label to correct it, save.
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
  const cardsBox = document.getElementById("teach-cards");
  const failedList = document.getElementById("teach-failed");
  const progress = document.getElementById("teach-progress");
  const existsBox = document.getElementById("teach-exists");
  const nameInput = document.getElementById("deck-name");
  const chosenText = document.getElementById("deck-photos-chosen");
  const clearButton = document.getElementById("deck-photos-clear");
  const readButton = document.getElementById("read-button");
  const MAX_PHOTOS = Number(root.dataset.maxPhotos), MAX_CARD_PHOTOS = Number(root.dataset.maxCardPhotos);
  const MAX_BYTES = Number(root.dataset.maxBytes), LIMIT_MB = root.dataset.limitMb;
  // A photo's part of a request: the form's own fields and boundaries take a few hundred bytes more.
  const FORM_OVERHEAD_BYTES = 16 * 1024;
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

  // One photo per card: every card as a small picture with its label, in a grid.
  function showCards(result) {
    cardsBox.replaceChildren(...result.cards.map(function (card, number) {
      const figure = document.createElement("figure");
      const image = document.createElement("img");
      image.src = root.dataset.draftsUrl + "/" + draft + "/card/" + number;
      image.alt = result.photos[card.photo];
      image.loading = "lazy";
      const button = document.createElement("button");
      button.type = "button";
      button.className = "card-label" + (card.sure ? "" : " unsure");
      button.textContent = labelText(card, number);
      button.title = _("tap to name this card (the classifier thought: %(guesses)s)", { guesses: I18n.list(card.guesses) });
      button.addEventListener("click", function () { ask(card, number); });
      showing(number, button);
      figure.append(image, button);
      return figure;
    }));
  }

  function show(result) {
    photos.replaceChildren();
    cardsBox.replaceChildren();
    labels = {};
    if (result.kind === "cards") {
      showCards(result);
      showAsked(result);
      hint.hidden = false;
      saveButton.hidden = false;
      return;
    }
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
        : (data.error || answerError(response)));
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

  // What a failed answer says: the server's own words (in this page's language), else why there is none.
  function answerError(response) {
    if (!response) return _("no connection to the server");
    if (response.status === 413) return _("that is too much to send at once: the server takes at most %(mb)s MB a request", { mb: LIMIT_MB });
    return _("that did not work");
  }

  async function answerOf(response) {
    const data = response ? await response.json().catch(function () { return {}; }) : {};
    return data && typeof data === "object" ? data : {};
  }

  // The photos the player took or chose, in that order (the camera button adds one at a time).
  let chosen = [];
  function showChosen() {
    chosenText.textContent = chosen.length ? ngettext("%(n)d photo chosen", "%(n)d photos chosen", chosen.length) : _("no photos chosen yet");
    clearButton.hidden = chosen.length === 0;
    // more photos than a whole-deck draft takes: they are photos of single cards
    if (chosen.length > MAX_PHOTOS) document.getElementById("kind-cards").checked = true;
  }
  ["deck-photos", "deck-camera"].forEach(function (id) {
    const input = document.getElementById(id);
    input.addEventListener("change", function () {
      chosen = chosen.concat(Array.from(input.files));
      input.value = "";
      showChosen();
    });
  });
  clearButton.addEventListener("click", function () { chosen = []; showChosen(); });

  function listFailed(items) {
    failedList.replaceChildren(...items.map(function (text) {
      const item = document.createElement("li");
      item.textContent = text;
      return item;
    }));
  }

  function kind() { return form.querySelector("input[name=kind]:checked").value; }

  /** What the page cannot send, said before anything is sent ("" when every photo can go). */
  function beforeSending(files, photosKind) {
    if (!nameInput.value.trim()) return _("Give the deck a name first.");
    if (!files.length) return _("Choose the photos first, or take them with the camera.");
    if (photosKind === "cards" && files.length > MAX_CARD_PHOTOS) {
      return _("%(count)s photos chosen: at most %(max)s, one for each card (and its back)", { count: files.length, max: MAX_CARD_PHOTOS });
    }
    if (photosKind !== "cards" && files.length > MAX_PHOTOS) {
      return _("%(count)s photos chosen: at most %(max)s photos of the whole deck (photos of single cards: choose “one card each”)",
               { count: files.length, max: MAX_PHOTOS });
    }
    const notPhotos = files.filter(function (file) { return file.type && !file.type.startsWith("image/"); });
    if (notPhotos.length) {
      return _("These files are not photos: %(names)s (choose them again without those)", { names: I18n.list(notPhotos.map((f) => f.name)) });
    }
    return "";
  }

  async function post(url, body) {
    return fetch(url, { method: "POST", body: body }).catch(function () { return null; });
  }

  // Sends each photo in a request of its own (a deck's 52 photos are far over the server's limit at once),
  // then has the draft read: returns the reading, or null (what went wrong is said).
  async function sendAll(files, photosKind, replace) {
    const start = new FormData();
    start.append("name", nameInput.value.trim());
    start.append("kind", photosKind);
    start.append("expect", String(files.length));
    if (replace) start.append("replace", "1");
    let response = await post(root.dataset.draftsUrl, start);
    let data = await answerOf(response);
    if (response && response.status === 409 && data.exists) {
      say(data.error);
      existsBox.hidden = false;
      return null;
    }
    if (!response || !response.ok) { say(data.error || answerError(response)); return null; }
    draft = data.draft;
    const failed = [];
    progress.hidden = false;
    progress.max = files.length;
    progress.value = 0;
    for (let index = 0; index < files.length; index++) {
      say(_("Sending photo %(n)s of %(count)s…", { n: index + 1, count: files.length }));
      const file = await shrunk(files[index]);
      if (file.size + FORM_OVERHEAD_BYTES > MAX_BYTES) {
        failed.push(_("%(name)s: too large to send (%(size)s MB; the server takes at most %(mb)s MB a photo)",
                      { name: files[index].name, size: (file.size / 1048576).toFixed(1), mb: LIMIT_MB }));
      } else {
        const body = new FormData();
        body.append("at", String(index));
        body.append("photos", file, file.name);
        response = await post(root.dataset.draftsUrl + "/" + draft + "/photos", body);
        if (!response) response = await post(root.dataset.draftsUrl + "/" + draft + "/photos", body);   // once more: a dropped link
        data = await answerOf(response);
        if (response && response.ok) {
          (data.failed || []).forEach(function (item) { failed.push(item.error); });
        } else if (response && response.status === 404) {
          say(data.error || answerError(response));
          progress.hidden = true;
          return null;
        } else {
          failed.push(_("%(name)s: %(error)s", { name: files[index].name, error: data.error || answerError(response) }));
        }
      }
      progress.value = index + 1;
      listFailed(failed);
    }
    say(failed.length === files.length ? _("No photo could be sent.") : _("Reading the cards…"));
    if (failed.length === files.length) { progress.hidden = true; return null; }
    response = await post(root.dataset.draftsUrl + "/" + draft + "/read", new FormData());
    data = await answerOf(response);
    progress.hidden = true;
    if (!response || !response.ok) { say(data.error || answerError(response)); return null; }
    return data;
  }

  async function readCards(replace) {
    existsBox.hidden = true;
    listFailed([]);
    showProblems([]);
    const photosKind = kind();
    const refused = beforeSending(chosen, photosKind);
    if (refused) { say(refused); if (!nameInput.value.trim()) nameInput.focus(); return; }
    corrections = {};
    readButton.disabled = true;
    try {
      const result = await sendAll(chosen, photosKind, replace);
      if (!result) return;
      say(result.complete ? ngettext("%(n)d card found: every card placed surely.", "%(n)d cards found: every card placed surely.", result.cards.length)
        : ngettext("%(n)d card found", "%(n)d cards found", result.cards.length));
      showProblems((result.problems || []).concat(result.notes || []));
      show(result);
    } finally {
      readButton.disabled = false;
    }
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    readCards(false);
  });

  // A deck of that name is there already: replace it (once the player confirms) or pick another name.
  document.getElementById("replace-button").addEventListener("click", function () {
    const name = nameInput.value.trim();
    if (window.confirm(_("Replace the deck %(deck)s with the one in these photos? The old one is forgotten once the new one is saved.",
                         { deck: name }))) readCards(true);
  });
  document.getElementById("rename-button").addEventListener("click", function () {
    existsBox.hidden = true;
    say(_("Type another name for this deck, then read the cards again."));
    nameInput.focus();
    nameInput.select();
  });

  saveButton.addEventListener("click", async function () {
    if (!draft) return;
    say(_("Learning the deck…"));
    const response = await fetch(root.dataset.draftsUrl + "/" + draft + "/save", {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ corrections: corrections })
    }).catch(function () { return null; });
    const result = await answerOf(response);
    if (response && response.status === 409 && result.exists) { say(result.error); existsBox.hidden = false; return; }
    if (response && response.ok && result.saved) {
      say(_("Saved the deck %(deck)s. A table can now read with it.", { deck: result.name }));
      showProblems(result.notes || []);
      saveButton.hidden = true;
      const list = document.getElementById("deck-list");
      list.querySelectorAll("li.empty").forEach(function (item) { item.remove(); });
      if (!Array.from(list.children).some(function (item) { return item.textContent === result.name; })) {
        const item = document.createElement("li");
        item.textContent = result.name;
        list.appendChild(item);
      }
      offerToTable(result.name);
      return;
    }
    say(result.error || (response && response.status === 422 ? _("Not saved yet: see what is missing below.") : answerError(response)));
    if (result.problems) { showProblems(result.problems); show(result); }
  });
})();
