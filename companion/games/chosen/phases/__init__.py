"""The event handlers of The Chosen, one module per phase (package-internal: the engine dispatches to them)."""
