import sys
from pathlib import Path

# the test helpers (_naive, _data) import as top-level modules
sys.path.insert(0, str(Path(__file__).resolve().parent))
