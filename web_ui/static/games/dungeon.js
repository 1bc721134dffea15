/* Guilds and Dungeon: placeholder until the engine's view lands; the generic screen draws it meanwhile. */
"use strict";
(() => {
  Games.dungeon = { render: (state, ctx) => Games.generic.render(state, ctx), templates: () => [] };
})();
