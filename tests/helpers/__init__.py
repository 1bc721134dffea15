"""Helpers several test modules share (a tiny engine, app factories, throwaway models). No tests here.

Test modules import them as ``from helpers.<module> import ...`` (pytest puts ``tests/`` on the path).
"""
