"""A player's own deck, learned from photos or card images (no training, no torch).

    store = DeckStore(data_dir)                       # decks.store: <data>/decks/<name>/
    result = learn_from_photos(detector, [("deal.jpg", frame)], "home")    # decks.photos
    if result.complete: store.save(result.profile)
    detector = detector.with_deck(store.load("home"))                      # reads with decks.profile

- ``profile``: the learned deck (prototypes, ink colours, back) and how a reading is compared with it;
- ``store``: decks on disk, by name;
- ``photo_reading``: what the models see in learning photos, grouped into cards;
- ``assignment``: each card once, and how sure each placement is;
- ``copies``: two copies of one card in a photo of each card once;
- ``result``: what learning found and what it asks the player;
- ``photos``: learning from whole-deck photos; ``folder``: from a folder of card images.
"""
