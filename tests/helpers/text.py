"""Text the companion carries as messages (``{"msg", "args"}``, or a Message), read back in English for assertions."""
from companion.messages import Message, english, from_json


def words(value) -> str:
    """A message (its JSON, or the object) as the English sentence; plain text as it is."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, Message):
        return english(value)
    return english(from_json(value))
