"""Checks: the shipped (or a candidate) models measured on real photos, rendered scenes and recordings."""
