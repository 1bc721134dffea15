"""The table pipeline: frames in, settled card events out, game events into the engines.

Sources (``sources``) → mat homography (``calibration.homography``) → detector → zones (``zones``)
→ stability (``tracker``) → game bindings (``bindings``), assembled by ``pipeline``.
"""
