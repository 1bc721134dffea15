"""The event handlers of Guilds and Dungeon, one module per phase (package-internal: the engine dispatches to them)."""
