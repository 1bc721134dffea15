"""Learned decks on disk: ``<data>/decks/<folder>/`` (profile.json + prototypes.npz), written atomically.

A deck is named as the player typed it, in any language ("家里的牌", "club night", "Kitchen 2"); its
folder is a safe file name of its own (:func:`folder_name`): a name of ASCII letters, digits, spaces
and ``. _ -`` (every name before names in other languages were allowed) is its own folder, so decks
saved then are found as before; any other name lives in ``_<ascii part>-<hash>``, and its
profile.json keeps the name as typed.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
import unicodedata
import zipfile
from pathlib import Path

import numpy as np

from companion.vision.decks.profile import DeckError, DeckProfile
from companion.messages import Message

DATA_ENV = "COMPANION_DATA"
DEFAULT_DATA_DIR = "companion-data"     # the folder `companion serve` uses when given none
# A deck name is at most this many characters (a phone's deck menu shows about that many; the folder of
# a name in another language is shorter still: see folder_name).
NAME_MAX_CHARACTERS = 40
# Characters no deck name holds: path separators and what Windows refuses in a file name (a deck folder
# copied there must still work), besides control characters (check_name).
NAME_FORBIDDEN = set('/\\:*?"<>|')
# The names that were the only ones allowed before names in any language: each is its own folder.
PLAIN_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 _.-]{0,39}$")
# The hex digits of a name's sha256 in its folder's name (64 bits: no two names a player types collide).
FOLDER_HASH_DIGITS = 16
FOLDER_ASCII_CHARACTERS = 20
# A name that is not a plain folder name lives in profile.json, and in this file beside it: the folder's
# hash cannot be read back, and a damaged profile.json must not hide the deck from the lists.
NAME_FILE = "name.txt"


def folder_name(name: str) -> str:
    """The deck's folder under ``decks/``: a plain name (``PLAIN_NAME``) as it is; any other name
    ``_`` + its ASCII letters and digits (up to 20, joined by ``-``) + ``-`` + 16 hex digits of its
    sha256 ("家里的牌" → ``_<hash>``, "Club 家" → ``_club-<hash>``). The ``_`` keeps it apart from
    every plain name, which starts with a letter or digit."""
    if PLAIN_NAME.match(name):
        return name
    digest = hashlib.sha256(unicodedata.normalize("NFC", name).encode("utf-8")).hexdigest()[:FOLDER_HASH_DIGITS]
    ascii_part = "-".join(re.findall(r"[a-z0-9]+", name.lower()))[:FOLDER_ASCII_CHARACTERS].strip("-")
    return f"_{ascii_part}-{digest}" if ascii_part else f"_{digest}"


def default_data_dir(data: str | os.PathLike | None = None) -> Path:
    """``--data`` when given, else ``$COMPANION_DATA``, else the folder ``companion serve`` uses."""
    if data:
        return Path(data)
    return Path(os.environ.get(DATA_ENV) or DEFAULT_DATA_DIR)



class DeckStore:
    """Deck profiles under ``<data>/decks/<folder>/`` (profile.json + prototypes.npz), by the name as typed."""

    def __init__(self, data_dir: str | os.PathLike | None = None):
        self.root = default_data_dir(data_dir) / "decks"

    @staticmethod
    def check_name(name: str) -> str:
        """``name`` when it is a deck name: 1-40 characters, letters and digits of any language, spaces and
        punctuation, starting with a letter or digit, no control characters and none of ``/ \\ : * ? " < > |``.
        Returned in Unicode's composed form (NFC): the same name typed on two phones is one deck."""
        if not isinstance(name, str) or not _is_deck_name(name):
            raise DeckError(Message("deck name %(name)s: use 1-%(max)s letters or digits (in any language), spaces or punctuation, "
                                    "starting with a letter or digit, without / \\ : * ? \" < > |",
                                    name=repr(name) if isinstance(name, str) else "?", max=NAME_MAX_CHARACTERS))
        return unicodedata.normalize("NFC", name)

    @staticmethod
    def clean_name(text: str) -> str:
        """What a player typed, as a deck name: spaces around it dropped, in Unicode's composed form
        (then :meth:`check_name` says whether it is one)."""
        return unicodedata.normalize("NFC", text).strip() if isinstance(text, str) else text

    def path(self, name: str) -> Path:
        return self.root / folder_name(self.check_name(name))

    def exists(self, name: str) -> bool:
        return (self.path(name) / "profile.json").is_file()

    def names(self) -> list[str]:
        """The learned decks' names as typed: a plain folder's own name (a deck saved before names in any
        language, or one moved by hand, is found by its folder), else the name its profile.json keeps, else
        (profile.json unreadable: a damaged deck, still listed so a player sees it and can remove it) the
        name in ``NAME_FILE`` beside it."""
        if not self.root.is_dir():
            return []
        found = []
        for folder in self.root.iterdir():
            if folder.name.startswith(".") or not (folder / "profile.json").is_file():
                continue
            if PLAIN_NAME.match(folder.name):
                found.append(folder.name)
                continue
            try:
                name = json.loads((folder / "profile.json").read_text(encoding="utf-8")).get("name")
            except (OSError, ValueError, AttributeError):
                name = None
            if not (isinstance(name, str) and _is_deck_name(name) and folder_name(name) == folder.name):
                try:
                    name = (folder / NAME_FILE).read_text(encoding="utf-8")
                except (OSError, ValueError):
                    continue
            if isinstance(name, str) and _is_deck_name(name) and folder_name(name) == folder.name:
                found.append(name)
        return sorted(found)

    def save(self, profile: DeckProfile, replace: bool = False) -> Path:
        """Write atomically (a temporary folder renamed into place): a failure leaves what was there."""
        target = self.path(profile.name)
        if self.exists(profile.name) and not replace:
            raise DeckError(Message("a deck named %(name)s already exists in %(root)s (remove it first, or pick another name)",
                                    name=repr(profile.name), root=self.root))
        self.root.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=self.root))
        try:
            arrays = {"prototypes": profile.prototypes}
            if profile.back is not None:
                arrays["back"] = profile.back
            if profile.colours is not None:
                arrays["colours"] = profile.colours
            np.savez_compressed(staging / "prototypes.npz", **arrays)
            (staging / "profile.json").write_text(json.dumps(
                {"name": profile.name, "codes": list(profile.codes), "info": profile.info}, indent=1, ensure_ascii=False), encoding="utf-8")
            (staging / NAME_FILE).write_text(profile.name, encoding="utf-8")
            if target.exists():
                old = target.with_name(f".{target.name}.old")
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
        reading = folder / "profile.json"
        try:
            meta = json.loads(reading.read_text(encoding="utf-8"))
            deck_name, codes, info = meta["name"], tuple(meta["codes"]), meta.get("info", {})
            reading = folder / "prototypes.npz"
            with np.load(reading) as arrays:
                prototypes = arrays["prototypes"]
                back = arrays["back"] if "back" in arrays else None
                colours = arrays["colours"] if "colours" in arrays else None
            return DeckProfile(deck_name, codes, prototypes, back, info, colours)
        except (OSError, KeyError, ValueError, TypeError, EOFError, zipfile.BadZipFile) as error:
            # The operator is told which file (and the OS's reason, in the log of a server); a phone only that
            # the deck is damaged and what a player can do: it can use neither the server's path nor the OS's words.
            raise DamagedDeck(Message("deck %(name)s is damaged: %(file)s cannot be read (teach it again, or remove it)",
                                      name=repr(name), file=str(reading)),
                              for_player=Message("the deck %(name)s is damaged on the server: teach it again, or remove it",
                                                 name=repr(name)), file=reading, reason=f"{reading}: {error}") from None

    def remove(self, name: str) -> None:
        if not self.exists(name):
            raise self._no_such(name)
        shutil.rmtree(self.path(name))

    def _no_such(self, name: str) -> DeckError:
        # The command line names the data folder it looked in; a phone is not told the server's folders.
        known = self.names()
        if known:
            return DeckError(Message("no deck named %(name)s in %(root)s (known: %(known)s)", name=repr(name), root=self.root, known=known),
                             for_player=Message("no deck named %(name)s on this server (known: %(known)s)", name=repr(name), known=known))
        return DeckError(Message("no deck named %(name)s in %(root)s (none learned yet)", name=repr(name), root=self.root),
                         for_player=Message("no deck named %(name)s on this server (none learned yet)", name=repr(name)))


class DamagedDeck(DeckError):
    """A saved deck whose files cannot be read: ``file`` the one that failed (a listing names it), ``reason`` that file
    and the OS's (or numpy's) words, for a server's log."""

    def __init__(self, message: Message, *, for_player: Message, file: Path, reason: str) -> None:
        super().__init__(message, for_player=for_player)
        self.file = file
        self.reason = reason


def _is_deck_name(name: str) -> bool:
    if not 1 <= len(name) <= NAME_MAX_CHARACTERS or name != name.strip():
        return False
    if unicodedata.category(name[0])[0] not in "LN":
        return False
    # C*: control, format, unassigned, private-use and surrogate characters; Zl/Zp: line breaks
    return not any(ch in NAME_FORBIDDEN or unicodedata.category(ch)[0] == "C" or unicodedata.category(ch) in ("Zl", "Zp")
                   for ch in name)


def load_deck(name: str | None, data_dir: str | os.PathLike | None = None) -> DeckProfile | None:
    """The named deck from the data folder, or None when no name is given."""
    return None if not name else DeckStore(data_dir).load(name)

