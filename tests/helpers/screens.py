"""What a phone shows, read back from the page: the visible text (to find English left on a Chinese
page) and the text's boxes (to find text that overflows the screen or lies on other text).

``visible_text(page)`` returns every string a reader meets: each visible text node, and the
``aria-label``, ``title``, ``alt`` and ``placeholder`` of visible elements (what a screen reader
reads, and a long press shows). Left out, because they are not words of the page's language: text
inside ``<code>`` (identifiers a referee types: option names and values, table codes), what a
``<textarea>`` holds (the referee's JSON), and inside an
element marked with another ``lang`` (the language switch's "English").

``english_left(texts, allowed)`` is what remains English once the allowed tokens are taken out:
card codes (10H, SJ), table codes (K7M2QX), snake_case identifiers (an option's name, as its help
names it), paths and file names, and the proper names and codes passed in ``allowed``.
"""
from __future__ import annotations

import re
from typing import Iterable

_COLLECT = """() => {
  const skip = (el) => el.closest('code, kbd, samp, textarea, script, style, [translate="no"]')
    || [...document.querySelectorAll('[lang]')].some((l) => l !== document.documentElement && l.contains(el)
         && !l.lang.startsWith(document.documentElement.lang.slice(0, 2)));
  const visible = (el) => el.checkVisibility({ visibilityProperty: true });
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node; (node = walker.nextNode());) {
    const text = node.textContent.trim();
    const el = node.parentElement;
    if (text && el && visible(el) && !skip(el)) out.push(text);
  }
  for (const el of document.querySelectorAll('[aria-label], [title], [alt], [placeholder]')) {
    if (!visible(el) || skip(el)) continue;
    for (const name of ['aria-label', 'title', 'alt', 'placeholder']) {
      const value = (el.getAttribute(name) || '').trim();
      if (value) out.push(value);
    }
  }
  const title = document.title.trim();
  if (title) out.push(title);
  return out;
}"""

# Each line box of each visible text node, clipped to the scrolling boxes it lies in (text scrolled out
# of a box is not shown), with the text and whether it lies in an open dialog.
_TEXT_BOXES = """() => {
  const boxes = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const clips = (el) => {
    const found = [];
    for (let a = el; a && a !== document.body; a = a.parentElement) {
      const style = getComputedStyle(a);
      if (style.overflowX !== 'visible' || style.overflowY !== 'visible') found.push(a.getBoundingClientRect());
    }
    return found;
  };
  for (let node; (node = walker.nextNode());) {
    if (!node.textContent.trim()) continue;
    const el = node.parentElement;
    if (!el || !el.checkVisibility({ visibilityProperty: true, opacityProperty: true })) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    const around = clips(el);
    for (const r of range.getClientRects()) {
      let [left, top, right, bottom] = [r.left, r.top, r.right, r.bottom];
      for (const c of around) {
        left = Math.max(left, c.left); top = Math.max(top, c.top);
        right = Math.min(right, c.right); bottom = Math.min(bottom, c.bottom);
      }
      if (right - left < 1 || bottom - top < 1) continue;
      boxes.push({ box: [left, top, right, bottom], text: node.textContent.trim().slice(0, 40),
                   dialog: !!el.closest('dialog[open]'), fixed: !!el.closest('.topbar') });
    }
  }
  // the layout viewport: a mobile browser widens window.innerWidth to whatever overflows (and zooms out)
  return { boxes, width: document.documentElement.clientWidth, scrollWidth: document.scrollingElement.scrollWidth,
           modal: !!document.querySelector('dialog[open]') };
}"""

CODES = re.compile(r"\b(?:10|[2-9AJQK])[SHDC]\b|\b(?:SJ|BJ|BACK)\b|\b[A-Z0-9]{6}\b|\b[a-z]+(?:_[a-z]+)+\b")
PATHS = re.compile(r"\S*[/\\]\S*|\b[\w-]+\.(?:mp4|jsonl?|png|jpe?g|pdf|yaml)\b")
LATIN_WORD = re.compile(r"[A-Za-z]{2,}")


def visible_text(page) -> list[str]:
    return page.evaluate(_COLLECT)


def english_left(texts: Iterable[str], allowed: Iterable[str]) -> list[str]:
    """The texts that still hold a Latin word once card codes, paths and the ``allowed`` names are out."""
    names = sorted({a for a in allowed if a}, key=len, reverse=True)
    name_pattern = re.compile("|".join(rf"(?<![A-Za-z]){re.escape(n)}(?![A-Za-z])" for n in names)) if names else None
    left = []
    for text in texts:
        rest = PATHS.sub(" ", CODES.sub(" ", text))
        if name_pattern is not None:
            rest = name_pattern.sub(" ", rest)
        if LATIN_WORD.search(rest):
            left.append(text)
    return sorted(set(left))


def layout_problems(page) -> list[str]:
    """Text wider than the screen, and text lying on other text (an open dialog: its own text only, as
    it covers the page)."""
    found = page.evaluate(_TEXT_BOXES)
    problems = []
    if found["scrollWidth"] > found["width"] + 1:
        problems.append(f"the page is {found['scrollWidth']} px wide on a {found['width']} px screen")
    boxes = [b for b in found["boxes"] if b["dialog"] or not found["modal"]]
    for b in boxes:
        left, _top, right, _bottom = b["box"]
        if left < -1 or right > found["width"] + 1:
            problems.append(f"off the screen: {b['text']!r} at {round(left)}..{round(right)} px")
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            if a["fixed"] != b["fixed"]:
                continue   # the sticky top bar passes over the page as it scrolls
            width = min(a["box"][2], b["box"][2]) - max(a["box"][0], b["box"][0])
            height = min(a["box"][3], b["box"][3]) - max(a["box"][1], b["box"][1])
            if width > 2 and height > 2:
                problems.append(f"overlapping text: {a['text']!r} and {b['text']!r}")
    return problems
