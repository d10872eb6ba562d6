"""The `rea` entry point. `rea mcp` starts the server without loading the one-shot CLI
(its family commands, parsers and renderers), so the server answers initialize sooner."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["mcp"]:
        from effects.server import main as serve

        return serve(args[1:])
    from effects.commandline import main as run_command
    from rea.collector import one_shot_process

    with one_shot_process():  # one command, then exit: what a collector pause builds is frozen, not walked
        return run_command(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
