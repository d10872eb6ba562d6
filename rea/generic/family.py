"""The generic family's one declaration (rea.families): `rea call`, `rea tools`, `rea prompts`/`rea prompt`,
`rea toolsets`, which serve every tool and prompt rather than one family.

It has no tools, programs or effects, only its command names (rea.generic.contract). The commands themselves are
the command line's own (effects.commandline, with effects.call_command and effects.prompt_commands): `rea call`'s
flags are the ones every family's derived command is built from (effects.derived_commands), so they stay beside it.
"""

from __future__ import annotations

from rea.family import Family

FAMILY = Family(name="generic", contracts=("rea.generic.contract",))
