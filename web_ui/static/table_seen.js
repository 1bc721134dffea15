/* Remembers on this phone the tables it opened: the evening's page lists them for a player who has no host's
   link (web_ui/evening.py). Only the codes, newest first. */
"use strict";
(() => {
  const root = document.getElementById("app");
  if (!root || !root.dataset.table) return;
  const KEY = "companion-seen", MOST = 200;
  let seen = [];
  try { seen = JSON.parse(localStorage.getItem(KEY) || "[]"); } catch (error) { seen = []; }
  if (!Array.isArray(seen)) seen = [];
  seen = [root.dataset.table, ...seen.filter((id) => id !== root.dataset.table)].slice(0, MOST);
  try { localStorage.setItem(KEY, JSON.stringify(seen)); } catch (error) { /* private mode: nothing kept */ }
})();
