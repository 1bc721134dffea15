/* The evening's pages (web_ui/evening.py): the host's link traded for a cookie, this phone's own tables,
   merging two players' names, deleting a table, importing an export. */
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const SEEN_KEY = "companion-seen";   // the tables this phone opened (table_seen.js keeps it)

  function show(box, text) { box.textContent = text; box.hidden = !text; }

  async function answer(response) {
    let body = null;
    try { body = await response.json(); } catch (error) { body = null; }
    if (!response.ok) throw new Error((body && body.error) || _("the server answered %(status)s", { status: response.status }));
    return body;
  }

  // -- the list: the host's link, or this phone's tables --------------------------------------------
  const evening = $("evening");
  if (evening) {
    const fragment = new URLSearchParams(location.hash.slice(1));
    const token = fragment.get("host");
    if (token) {
      history.replaceState(null, "", location.pathname);   // the token leaves the address bar
      fetch(evening.dataset.hostSession, { method: "POST", headers: { "X-Host-Token": token } })
        .then(answer).then(() => location.replace(location.pathname))
        .catch((error) => show($("host-error"), error.message));
    } else if (evening.dataset.scope === "mine" && !new URLSearchParams(location.search).get("mine")) {
      let seen = [];
      try { seen = JSON.parse(localStorage.getItem(SEEN_KEY) || "[]"); } catch (error) { seen = []; }
      if (Array.isArray(seen) && seen.length) location.replace(location.pathname + "?mine=" + encodeURIComponent(seen.join(",")));
    }
  }

  // -- a player's page: merge names (the host) ------------------------------------------------------
  const player = $("player");
  function merge(name, into) {
    return fetch(player.dataset.merge, { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ name: name, into: into }) }).then(answer);
  }
  if (player && $("merge-form")) {
    $("merge-form").addEventListener("submit", (event) => {
      event.preventDefault();
      merge($("merge-name").value, player.dataset.name).then(() => location.reload())
        .catch((error) => show($("merge-error"), error.message));
    });
  }
  if (player) {
    for (const button of document.querySelectorAll("button.unmerge")) {
      button.addEventListener("click", () => merge(button.dataset.name, null).then(() => location.reload())
        .catch((error) => show($("merge-error"), error.message)));
    }
  }

  // -- deleting a table (its referee) ---------------------------------------------------------------
  const remove = $("delete");
  if (remove) {
    const stored = localStorage.getItem("companion-pin:" + remove.dataset.table);
    if (stored) $("delete-pin").closest("form").querySelector("label[for=delete-pin]").hidden = $("delete-pin").hidden = true;
    $("delete-form").addEventListener("submit", (event) => {
      event.preventDefault();
      const key = stored || $("delete-pin").value.trim();
      if (!window.confirm(_("Delete table %(table)s? It leaves the list and the records.", { table: remove.dataset.table }))) return;
      fetch(remove.dataset.api, { method: "DELETE", headers: { "Content-Type": "application/json", "X-Referee-Pin": key },
        body: JSON.stringify({ confirm: $("delete-confirm").value }) })
        .then(answer).then(() => { localStorage.removeItem("companion-pin:" + remove.dataset.table); location.assign(remove.dataset.done); })
        .catch((error) => show($("delete-error"), error.message));
    });
  }

  // -- importing an export (the host) ---------------------------------------------------------------
  const importer = $("import");
  if (importer) {
    $("import-form").addEventListener("submit", async (event) => {
      event.preventDefault();
      show($("import-error"), "");
      const file = $("import-file").files[0];
      if (!file) return;
      try {
        const made = await answer(await fetch(importer.dataset.api, { method: "POST", headers: { "Content-Type": "application/json" },
          body: await file.text() }));
        const list = document.createElement("ul");
        for (const table of made.tables) {
          const item = document.createElement("li");
          const link = document.createElement("a");
          link.href = table.referee_url;
          link.textContent = table.id;
          item.append(link, " ", _("referee PIN %(pin)s", { pin: table.pin }));
          if (table.former_id && table.former_id !== table.id) item.append(" ", _("(was %(table)s)", { table: table.former_id }));
          list.append(item);
        }
        const done = $("import-done");
        done.replaceChildren(document.createTextNode(ngettext("%(n)d table imported:", "%(n)d tables imported:", made.tables.length)), list);
      } catch (error) {
        show($("import-error"), error.message);
      }
    });
  }
})();
