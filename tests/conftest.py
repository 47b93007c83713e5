import sys
from pathlib import Path

from hypothesis import settings

# the test helpers (_naive, _data) import as top-level modules
sys.path.insert(0, str(Path(__file__).resolve().parent))

# The suite must be deterministic: property tests draw the same examples on every run (a new
# failure is then found by raising max_examples locally, not by chance in CI).
settings.register_profile("deterministic", derandomize=True)
settings.load_profile("deterministic")
