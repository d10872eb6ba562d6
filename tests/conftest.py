import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

# Every REA process a test starts (the console script included) imports this checkout's code, not
# whichever checkout the editable install points at: a worktree tests itself.
_ROOT = str(Path(__file__).resolve().parents[1])
os.environ["PYTHONPATH"] = os.pathsep.join([_ROOT, *filter(None, [os.environ.get("PYTHONPATH")])])
