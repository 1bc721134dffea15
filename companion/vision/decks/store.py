"""Learned decks on disk: ``<data>/decks/<name>/`` (profile.json + prototypes.npz), written atomically."""
from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from pathlib import Path

import numpy as np

from companion.vision.decks.profile import DeckError, DeckProfile
from companion.messages import Message

DATA_ENV = "COMPANION_DATA"
DEFAULT_DATA_DIR = "companion-data"     # the folder `companion serve` uses when given none
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 _.-]{0,39}$")


def default_data_dir(data: str | os.PathLike | None = None) -> Path:
    """``--data`` when given, else ``$COMPANION_DATA``, else the folder ``companion serve`` uses."""
    if data:
        return Path(data)
    return Path(os.environ.get(DATA_ENV) or DEFAULT_DATA_DIR)



class DeckStore:
    """Deck profiles under ``<data>/decks/<name>/`` (profile.json + prototypes.npz)."""

    def __init__(self, data_dir: str | os.PathLike | None = None):
        self.root = default_data_dir(data_dir) / "decks"

    @staticmethod
    def check_name(name: str) -> str:
        if not isinstance(name, str) or not NAME_PATTERN.match(name):
            raise DeckError(Message("deck name %(name)s: use 1-40 letters, digits, spaces, '.', '_' or '-', starting with a letter or digit",
                                    name=repr(name)))
        return name

    def path(self, name: str) -> Path:
        return self.root / self.check_name(name)

    def exists(self, name: str) -> bool:
        return (self.path(name) / "profile.json").is_file()

    def names(self) -> list[str]:
        if not self.root.is_dir():
            return []
        return sorted(p.name for p in self.root.iterdir() if (p / "profile.json").is_file())

    def save(self, profile: DeckProfile, replace: bool = False) -> Path:
        """Write atomically (a temporary folder renamed into place): a failure leaves what was there."""
        target = self.path(profile.name)
        if self.exists(profile.name) and not replace:
            raise DeckError(Message("a deck named %(name)s already exists in %(root)s (remove it first, or pick another name)",
                                    name=repr(profile.name), root=self.root))
        self.root.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{profile.name}.", dir=self.root))
        try:
            arrays = {"prototypes": profile.prototypes}
            if profile.back is not None:
                arrays["back"] = profile.back
            if profile.colours is not None:
                arrays["colours"] = profile.colours
            np.savez_compressed(staging / "prototypes.npz", **arrays)
            (staging / "profile.json").write_text(json.dumps(
                {"name": profile.name, "codes": list(profile.codes), "info": profile.info}, indent=1))
            if target.exists():
                old = target.with_name(f".{profile.name}.old")
                target.rename(old)
                staging.rename(target)
                shutil.rmtree(old)
            else:
                staging.rename(target)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        return target

    def load(self, name: str) -> DeckProfile:
        folder = self.path(name)
        if not (folder / "profile.json").is_file():
            raise self._no_such(name)
        try:
            meta = json.loads((folder / "profile.json").read_text())
            with np.load(folder / "prototypes.npz") as arrays:
                prototypes = arrays["prototypes"]
                back = arrays["back"] if "back" in arrays else None
                colours = arrays["colours"] if "colours" in arrays else None
            return DeckProfile(meta["name"], tuple(meta["codes"]), prototypes, back, meta.get("info", {}), colours)
        except (OSError, KeyError, ValueError, json.JSONDecodeError) as error:
            raise DeckError(Message('deck %(name)s in %(folder)s is damaged (%(error)s)', name=repr(name), folder=folder, error=error)) from None

    def remove(self, name: str) -> None:
        if not self.exists(name):
            raise self._no_such(name)
        shutil.rmtree(self.path(name))

    def _no_such(self, name: str) -> ValueError:
        known = self.names()
        return ValueError(f"no deck named {name!r} in {self.root}"
                          + (f" (known: {', '.join(known)})" if known else " (none learned yet: companion deck learn)"))


def load_deck(name: str | None, data_dir: str | os.PathLike | None = None) -> DeckProfile | None:
    """The named deck from the data folder, or None when no name is given."""
    return None if not name else DeckStore(data_dir).load(name)

