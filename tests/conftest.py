import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

# Every REA process a test starts (the console script included) imports this checkout's code, not
# whichever checkout the editable install points at: a worktree tests itself.
_ROOT = str(Path(__file__).resolve().parents[1])
os.environ["PYTHONPATH"] = os.pathsep.join([_ROOT, *filter(None, [os.environ.get("PYTHONPATH")])])

# This host (and CI) exports PYTHONDONTWRITEBYTECODE=1: every `rea`, MCP server and worker a test starts would
# then compile REA's ~400 modules from source again (about 1 s each, hundreds of processes). Let them cache
# bytecode as an installed package does (in the tree's ignored __pycache__ directories: a cache prefix would
# also move site-packages' caches, and the first process to import angr would then compile all of it).
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False

# Under pytest-xdist each worker (and every process its tests start) gets a temporary directory of its own:
# tests that compare what a temporary directory holds before and after a call never see another worker's files.
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ["TMPDIR"] = tempfile.tempdir = tempfile.mkdtemp(prefix=f"rea-{os.environ['PYTEST_XDIST_WORKER']}-")
    atexit.register(shutil.rmtree, os.environ["TMPDIR"], True)

# The analysis cache (snapshots, annotations, WAT pages) of this test session only: a test never answers from
# what the user's ~/.cache/rea holds (the Quick start's first command fills it) and never writes there.
os.environ["REA_CACHE_DIR"] = tempfile.mkdtemp(prefix="rea-test-cache-")
atexit.register(shutil.rmtree, os.environ["REA_CACHE_DIR"], True)

# The fixtures several families' tests share, defined once beside their helpers (the *_fixtures modules) and
# offered to every test here: a test names the fixture as a parameter and never imports it from another test.
from chromium_fixtures import browser, owned, site  # noqa: E402,F401
from emulation_fixtures import sample  # noqa: E402,F401
from javascript_fixtures import npm_tree  # noqa: E402,F401
from native_fixtures import binaries, cache_dir, images  # noqa: E402,F401
from stack_strings_fixtures import samples  # noqa: E402,F401
