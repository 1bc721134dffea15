"""What the whole suite shares: where the project's shared material lies (``../shared`` beside the checkout)."""
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
GOLDEN_KINGDOMS = SHARED / "golden" / "kingdoms_seed_example.json"
REAL_DATASET = SHARED / "datasets" / "cardcounterml"
