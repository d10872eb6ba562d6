"""angr's unicorn engine for effects.native.emulator: many blocks per step at native speed, observed block by
block, inside the angr worker (unicorn is a CPU emulator library: nothing runs on the host).

angr's VEX engine executes about 2,000 instructions a second here; unicorn, which angr drives through its
native layer (unicornlib) when the `unicorn` package is installed, runs the same concrete code tens of
thousands of times faster. angr hands a whole run of blocks to unicorn in one step and reports only where it
stopped, so this module adds what the emulator's answer needs from each block: two unicorn hooks on angr's
plugin (`Watched`) record every block executed (address and size: the steps, instructions, visited
addresses and calls made) and every memory write (the memory budget and the image writes), and stop
unicorn as soon as the writes pass the memory budget. Budgets, cancellation and the other stops are checked
by the emulator between such runs, which it bounds to CHUNK blocks.

Also here: angr's brk heap with its pages mapped as allocations reach them (`lazy_heap`); angr maps all
8 MiB of it, page by page, the first time anything looks at the heap (half a second per run, and unicorn's
bookkeeping looks at it after every run).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import attrs

from rea.native import emulation as plan

CHUNK = 4096  # blocks one unicorn run may execute before the emulator checks the budgets and a cancel again


@attrs.define
class Recorder:
    """What unicorn executed during one step: blocks in order, and each write reported to `wrote` (which
    answers True when the writes passed the memory budget: unicorn is stopped then)."""

    wrote: Callable[[int, int], bool]
    blocks: list[tuple[int, int]] = attrs.field(factory=list)

    def block(self, _uc: Any, address: int, size: int, _data: Any) -> None:
        self.blocks.append((address, size))


def available(angr: Any) -> bool:
    """Whether angr's native unicorn layer loaded (it needs the `unicorn` package)."""
    try:
        from angr.state_plugins import unicorn_engine as typed

        unicorn_engine: Any = typed  # it imports `unicorn` without exporting it
        return unicorn_engine._UC_NATIVE is not None and unicorn_engine.unicorn is not None
    except Exception:  # noqa: BLE001 - no unicorn: the VEX engine alone
        return False


# the architectures where REA runs unicorn: x86-64, the one tested here (32-bit x86 has angr's hooks too but no
# toolchain here to test it on); angr refuses AArch64 (SimUnicornUnsupport) and gives 32-bit ARM no
# system-call hook. The VEX engine runs the others.
ARCHITECTURES = frozenset({"x86_64"})


def supports(arch: Any) -> bool:
    return getattr(arch, "qemu_name", None) in ARCHITECTURES


def options(angr: Any) -> set[Any]:
    """unicorn on, with register values kept concrete; no basic-block or stack tracking (the hooks do it)."""
    o = angr.options
    return {o.UNICORN, o.UNICORN_SYM_REGS_SUPPORT}


@functools.cache
def _watched_class() -> type:
    import unicorn
    from angr.state_plugins import unicorn_engine

    # angr's plugin as Any: its methods are untyped and its copy is wrapped by angr's memo decorator
    engine: Any = unicorn_engine
    _UC_NATIVE, STOP = engine._UC_NATIVE, engine.STOP

    class Watched(engine.Unicorn):  # type: ignore[misc]  # subclassing angr's untyped plugin
        """angr's unicorn plugin with the emulator's hooks, and without the cool-down that keeps a state out
        of unicorn for 100 blocks after one block ran elsewhere (a stop point, a library model)."""

        recorder: Recorder | None = None

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            kwargs.setdefault("cooldown_nonunicorn_blocks", 0)
            kwargs.setdefault("cooldown_stop_point", 0)
            super().__init__(*args, **kwargs)

        def copy(self, memo: Any) -> Any:
            twin = super().copy(memo)
            twin.__class__ = Watched
            twin.cooldown_nonunicorn_blocks = twin.cooldown_stop_point = 0
            twin.recorder = self.recorder
            return twin

        def hook(self) -> None:
            super().hook()
            recorder = self.recorder
            if recorder is None:
                return
            native = self._uc_state

            def write(_uc: Any, _access: int, address: int, size: int, _value: int, _data: Any) -> None:
                if recorder.wrote(address, size):
                    _UC_NATIVE.stop(native, STOP.STOP_STOPPOINT)  # over the memory budget: the emulator says so

            self.uc.hook_add(unicorn.UC_HOOK_BLOCK, recorder.block)
            self.uc.hook_add(unicorn.UC_HOOK_MEM_WRITE, write)

    return Watched


def watch(state: Any, recorder: Recorder) -> None:
    """Give the state the hooked unicorn plugin (its successors inherit it)."""
    plugin = _watched_class()()
    plugin.recorder = recorder
    state.register_plugin("unicorn", plugin)


@functools.cache
def _lazy_heap_class() -> type:
    from angr.state_plugins.heap import heap_brk

    # angr's plugin as Any: its methods are untyped and its copy is wrapped by angr's memo decorator
    brk: Any = heap_brk

    class LazyHeap(brk.SimHeapBrk):  # type: ignore[misc]  # subclassing angr's untyped plugin
        """The brk heap, its pages mapped when an allocation reaches them (never past heap_size)."""

        mapped_to: int | None = None

        def init_state(self) -> None:  # angr's maps the whole region here
            self.mapped_to = self.heap_base

        def copy(self, memo: Any) -> Any:
            twin = super().copy(memo)
            twin.__class__ = LazyHeap
            twin.mapped_to = self.mapped_to
            return twin

        def allocate(self, sim_size: Any) -> Any:
            address = super().allocate(sim_size)
            top = min(self.heap_location, self.heap_base + self.heap_size)
            start = self.heap_base if self.mapped_to is None else self.mapped_to
            end = (top + plan.PAGE - 1) // plan.PAGE * plan.PAGE
            if end > start:
                self.state.memory.map_region(start, end - start, 3, init_zero=True)
                self.mapped_to = end
            return address

    return LazyHeap


def lazy_heap(state: Any) -> None:
    """Give the state a heap whose pages are mapped as allocations reach them."""
    state.register_plugin("heap", _lazy_heap_class()())


@attrs.frozen
class Block:
    """One executed block as the emulator reports it: its instruction addresses and whether it ends in a
    call (then the next block executed is the call's target)."""

    instructions: tuple[int, ...]
    call: bool


@functools.lru_cache(maxsize=1 << 16)
def block(project: Any, address: int, size: int) -> Block:
    """The instructions of the block unicorn executed at address (size bytes), lifted once per worker."""
    lifted = project.factory.block(address, size=size)
    try:
        call = lifted.vex.jumpkind == "Ijk_Call"
    except Exception:  # noqa: BLE001 - VEX cannot lift it (unicorn could run it): not a call we can name
        call = False
    return Block(instructions=tuple(lifted.instruction_addrs) or (address,), call=call)
