/* The table's Deck panel: which learned deck the camera reads with (every phone), and for the referee a
   choice of deck and the way to "Teach your deck". The choice is a change of the table (POST …/deck, with
   the referee's key and an Idempotency-Key, through app.js's call), so every phone sees it live. */
"use strict";
window.Deck = (() => {
  const $ = (id) => document.getElementById(id);
  let shown = null;   // the session.deck the sentence was fetched for

  /** The camera status's word on the deck (camera.js polls it every few seconds). */
  function show(deck) {
    const says = $("deck-says");
    const text = deck.says ? I18n.render(deck.says) : "";
    if (says && text && says.textContent !== text) says.textContent = text;
  }

  function init(ctx) {
    const panel = $("deck-panel");
    if (!panel) return { update() {} };
    const form = $("deck-form"), choice = $("deck-choice");

    async function refreshSays() {
      const response = await fetch(panel.dataset.camera, { cache: "no-store" }).catch(() => null);
      if (!response || !response.ok) return;
      const data = await response.json();
      if (data.deck) show(data.deck);
    }

    function select(deck) {
      const wanted = JSON.stringify(deck.server_default ? { server_default: true } : { deck: deck.name });
      for (const option of choice.options) {
        if (JSON.stringify(JSON.parse(option.value)) === wanted) { choice.value = option.value; return; }
      }
    }

    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      try {
        const data = await ctx.call("/deck", JSON.parse(choice.value));
        if (data.deck) show(data.deck);
        ctx.say(_("The camera's deck is chosen."));
      } catch (error) {
        ctx.say(error.message, "error");
      }
    });

    return {
      /** After every render: the referee's controls, and the sentence again when the table's deck changed. */
      update(state) {
        form.hidden = !ctx.isReferee();
        const deck = state && state.session && state.session.deck;
        if (!deck) return;
        const key = JSON.stringify(deck);
        if (shown !== null && shown !== key) { refreshSays(); select(deck); }
        shown = key;
      },
    };
  }
  return { init, show };
})();
