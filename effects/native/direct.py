"""unicorn driven directly for the plain case of emulate_native_function, inside the worker, without angr.

Why: a cold emulation spent seconds importing angr and loading the project (its IRELATIVE resolvers alone are
emulated in angr's VEX engine at load), against milliseconds for the run. For a static x86-64 ELF (the
malware-like samples issue 29 names) whose routine touches only its image, its stack and the caller's
buffers, this module runs the same unicorn library angr's engine drives (effects.native.emulator with
native_blocks), from the same state, and answers with the same code (emulator.Walk, emulator.observe,
rea.native.emulation); nothing runs on the host.

The same state means laid out where angr lays it out: the image at its link-time addresses with the bytes
of its PT_LOAD segments (zero past the file's), the stack under angr's initial stack pointer with angr's
return address (its CallReturn hook, the first free words of cle's extern object) on top, the buffers
above everything cle maps (emulator.buffer_base), integers in the System V registers, everything else zero.
The blocks unicorn executes are read as angr's answer reads them: capstone gives the instructions VEX
lifts (a block of more than VEX's 99 is not read here), and whether the block ends in a call.

Wherever angr would do something this module does not model, it gives up (`Declined`) and the caller runs
angr from the start, so such an answer is angr's own: memory outside those regions (thread-local storage,
the heap, the zero page: a fault or angr's data), bytes angr sets at load (the IRELATIVE slots its resolvers
fill, the loader data it patches) or that lie between segments, a system call, a procedure angr hooks, a
write to read-only memory, the memory budget's stop, `stop_at`, more than six arguments, an instruction
capstone cannot read or that VEX ends a block at. tests/native/test_native_emulation_direct.py checks both engines
give the same facts on the emulation tests' samples, and the layout constants against angr's project.
"""

from __future__ import annotations

import struct
import time
from collections.abc import Callable
from typing import Any

import attrs

from effects.layout import elf
from effects.native import emulator, native_blocks
from rea.native import emulation as plan

PAGE = plan.PAGE
STACK_END = 0x7FFF_FFFF_0000  # archinfo's AMD64 initial_sp: angr's stack ends here
STACK_SIZE = 8 << 20  # angr's default stack size
REBASE_GRANULARITY = 0x100000  # cle places the objects after the main one on this alignment
DEADEND_OFFSET = 0x38  # angr's CallReturn hook: the 8th word SimLinux and SimOS allocate in the extern object
LATER_OBJECTS = 3  # cle maps the extern object, the TLS object and the kernel object after the main one
MAX_TLS = 0x10000  # a TLS template this small keeps cle's TLS object within one rebase granule
VEX_MAX_INSTRUCTIONS = 99  # pyvex lifts at most this many instructions a block
ARGUMENT_REGISTERS = ("rdi", "rsi", "rdx", "rcx", "r8", "r9")
HOOKED_SYMBOLS = ("__tls_get_addr", "___tls_get_addr", "_dl_get_tls_static_info", "_dl_vdso_vsym")  # SimLinux's
PATCHED = {"_rtld_global": (0xF08, 0xF10, 0x990), "_rtld_global_ro": (0xD0,)}  # words SimLinux writes at load
# instructions VEX ends a block at (or lifts differently) where unicorn may go on
VEX_BREAKS = frozenset({"cpuid", "rdtsc", "rdtscp", "xgetbv", "syscall", "sysenter", "int", "int3", "hlt", "ud2"})
PT_LOAD, PT_DYNAMIC, PT_INTERP, PT_TLS, PT_GNU_RELRO = 1, 2, 3, 7, 0x6474E552
PF_X, PF_W = 1, 2
EM_X86_64, ET_EXEC, R_X86_64_IRELATIVE, SHF_ALLOC = 62, 2, 37, 2


class Declined(Exception):
    """The run needs something only angr models: the caller emulates with angr instead (the reason says what)."""


@attrs.frozen
class Layout:
    """A static x86-64 ELF as angr would map it, for the direct engine."""

    pages: tuple[tuple[int, bytes, int], ...]  # (start, bytes, unicorn protection) of every mapped image page
    poisoned: tuple[tuple[int, int], ...]  # [start, end) byte ranges whose content angr decides: touching one declines
    hooked: frozenset[int]  # procedures angr replaces with its own models
    sections: tuple[tuple[int, int, str], ...]  # (start, size, name) of the allocated sections, by start
    image: tuple[int, int]  # lowest and highest image address (cle's main object min_addr, max_addr)
    deadend: int  # the return address angr pushes (its CallReturn hook)
    buffer_base: int  # where angr lays out buffers (above cle's last object)

    def section(self, address: int) -> tuple[str, int, int] | None:
        """The section holding address, as cle's find_section_containing answers it; two overlapping sections
        (.tbss over .init_array) decline, since cle's answer then depends on what it looked up last."""
        found = [(name, start, size) for start, size, name in self.sections if start <= address < start + size]
        if len(found) > 1:
            raise Declined(f"sections overlap at 0x{address:x}")
        return found[0] if found else None

    def check(self, address: int, size: int) -> None:
        """Decline when [address, address+size) touches bytes angr decides."""
        for start, end in self.poisoned:
            if address < end and address + size > start:
                raise Declined(f"bytes angr sets at load or leaves unmapped at 0x{start:x}")


def _align(value: int, to: int) -> int:
    return (value + to - 1) // to * to


def candidate(head: bytes) -> bool:
    """Whether a file's first 64 bytes are those of a little-endian x86-64 ET_EXEC ELF (layout may apply)."""
    if len(head) < 64 or head[:4] != b"\x7fELF" or head[4] != 2 or head[5] != 1:
        return False
    return struct.unpack_from("<HH", head, 16) == (ET_EXEC, EM_X86_64)


def layout(data: bytes) -> Layout | None:
    """The layout of a static (no interpreter, no dynamic section) x86-64 ET_EXEC ELF whose relocations are
    all IRELATIVE, else None (angr runs everything else)."""
    if not candidate(data[:64]):
        return None
    phoff, shoff = struct.unpack_from("<QQ", data, 32)
    phentsize, phnum, shentsize, shnum, shstrndx = struct.unpack_from("<HHHHH", data, 54)
    img = elf.Image(data, 64, True)
    headers = elf.program_headers(img, phoff, phnum, phentsize)
    kinds = {h["type"] for h in headers}
    loads = [h for h in headers if h["type"] == PT_LOAD and h["memory_size"]]
    tls = [h for h in headers if h["type"] == PT_TLS]
    if not loads or PT_INTERP in kinds or PT_DYNAMIC in kinds or any(h["memory_size"] > MAX_TLS for h in tls):
        return None
    sections, present = elf.section_headers(img, shoff, shnum, shentsize, shstrndx)
    if present != "present":
        return None
    relocs, _ = elf.relocations(img, sections, 1 << 16)
    if any(r["type"] != R_X86_64_IRELATIVE for r in relocs):
        return None
    mapped = _pages(data, loads, [h for h in headers if h["type"] == PT_GNU_RELRO])
    if mapped is None:
        return None
    pages, gaps = mapped
    symbols = _symbols(img, sections)
    poisoned = [(r["reported_offset"], r["reported_offset"] + 8) for r in relocs]
    for name, offsets in PATCHED.items():
        poisoned += [(symbols[name] + o, symbols[name] + o + 8) for o in offsets if name in symbols]
    low = min(h["virtual_address"] for h in loads)
    high = max(h["virtual_address"] + h["memory_size"] for h in loads) - 1
    extern = _align(high + 1, REBASE_GRANULARITY)
    return Layout(
        pages=tuple(pages),
        poisoned=tuple(sorted(poisoned + gaps)),
        hooked=frozenset(symbols[n] for n in HOOKED_SYMBOLS if n in symbols),
        sections=tuple(
            sorted(
                (s["address"], s["size"], str(s["name"]["display"]))
                for s in sections
                if s["flags"] & SHF_ALLOC and s["address"] and s["size"]
            )
        ),
        image=(low, high),
        deadend=extern + DEADEND_OFFSET,
        buffer_base=extern + LATER_OBJECTS * REBASE_GRANULARITY,
    )


def _pages(
    data: bytes, loads: list[dict[str, Any]], relro: list[dict[str, Any]]
) -> tuple[list[tuple[int, bytes, int]], list[tuple[int, int]]] | None:
    """Every page a PT_LOAD segment covers: its bytes (file bytes, zero past them), its protection, and the
    byte ranges of mapped pages no segment covers; None when two segments with different permissions share
    a page, or read-only-after-relocation memory ends inside a page (angr's page permissions are not read)."""
    from unicorn import UC_PROT_EXEC, UC_PROT_READ, UC_PROT_WRITE

    memory: dict[int, bytearray] = {}
    protection: dict[int, int] = {}
    covered: dict[int, list[tuple[int, int]]] = {}
    readonly = [(h["virtual_address"], h["virtual_address"] + h["memory_size"]) for h in relro]
    if any(end % PAGE for _, end in readonly):
        return None
    for h in loads:
        start, size, offset, filesz = h["virtual_address"], h["memory_size"], h["offset"], h["file_size"]
        body = data[offset : offset + min(filesz, size)]
        prot = UC_PROT_READ | (UC_PROT_WRITE if h["flags"] & PF_W else 0) | (UC_PROT_EXEC if h["flags"] & PF_X else 0)
        for page in range(start // PAGE * PAGE, _align(start + size, PAGE), PAGE):
            if protection.setdefault(page, prot) != prot:
                return None
            buf = memory.setdefault(page, bytearray(PAGE))
            low, high = max(start, page), min(start + size, page + PAGE)
            chunk = body[low - start : high - start]
            buf[low - page : low - page + len(chunk)] = chunk
            covered.setdefault(page, []).append((low, high))
    for low, high in readonly:
        for page in range(low // PAGE * PAGE, high, PAGE):
            if page in protection:
                protection[page] &= ~UC_PROT_WRITE
    gaps = []
    for page, spans in covered.items():
        cursor = page
        for low, high in sorted(spans):
            if low > cursor:
                gaps.append((cursor, low))
            cursor = max(cursor, high)
        if cursor < page + PAGE:
            gaps.append((cursor, page + PAGE))
    return [(page, bytes(memory[page]), protection[page]) for page in sorted(memory)], gaps


def _symbols(img: Any, sections: list[dict[str, Any]]) -> dict[str, int]:
    wanted = set(HOOKED_SYMBOLS) | set(PATCHED)
    rows, _ = elf.symbols(img, sections, 1 << 20)
    found: dict[str, int] = {}
    for row in rows:
        name = str(row["name"]["display"])
        if name in wanted and row["value"] and row["section_index"]:
            found.setdefault(name, row["value"])
    return found


# ----------------------------------------------------------------------- the run


@attrs.define
class _Watch:
    """What the unicorn hooks saw during one step: the blocks, the block it stopped before, and why it must
    give up."""

    limit: int = 0
    blocks: list[tuple[int, int]] = attrs.field(factory=list)
    pending: int | None = None
    declined: str | None = None


def run(
    found: Layout,
    entry: int,
    arguments: list[dict[str, Any]],
    limits: plan.Budget,
    *,
    into: Callable[[str], int],
    out: Callable[[int | None], str | None],
    emit: emulator.Emit | None = None,
) -> dict[str, Any]:
    """The facts angr's engine would give for this run (emulator.emulate's), or Declined."""
    from unicorn.unicorn import UcError  # unicorn's package does not re-export it for the type checker
    from unicorn.x86_const import UC_X86_REG_RIP

    placed = emulator.place(found.buffer_base, arguments, into)
    if len(placed) > len(ARGUMENT_REGISTERS):
        raise Declined("arguments on the stack")
    tracker = emulator.Tracker(image=found.image)
    watch = _Watch()
    uc = _machine(found, entry, placed, tracker, limits, watch)
    lift = _lifter(uc)
    walk = emulator.Walk(None, out, None, [entry], lift=lift, hooked=lambda _address: None)
    started, noted, pc = time.monotonic(), emulator.PROGRESS_EVERY, entry
    while True:
        ended = plan.verdict(
            limits,
            returned=pc == found.deadend,
            reached=False,
            steps=walk.steps,
            elapsed_ms=(time.monotonic() - started) * 1000,
            pages=len(tracker.pages),
            cancelled=emulator.Interrupt.requested,
        )
        if ended is not None:
            end: dict[str, Any] = {"status": ended}
            if ended != "returned":
                end["stop_address"] = out(pc)
            break
        if pc in found.hooked:
            raise Declined(f"a procedure angr hooks at 0x{pc:x}")
        watch.blocks, watch.pending = [], None
        watch.limit = min(native_blocks.CHUNK, limits.steps - walk.steps)
        try:
            uc.emu_start(pc, found.deadend)
        except UcError as exc:
            raise Declined(watch.declined or f"unicorn stopped: {exc}") from exc
        if watch.declined is not None:
            raise Declined(watch.declined)
        pc = uc.reg_read(UC_X86_REG_RIP)
        if pc != found.deadend and pc != watch.pending:
            raise Declined(f"unicorn stopped inside a block at 0x{pc:x}")
        walk.unicorn(watch.blocks, pc)
        if emit is not None and walk.steps >= noted:
            noted = walk.steps + emulator.PROGRESS_EVERY
            emit(f"emulated {walk.steps} blocks ({walk.instructions} instructions)")
    end.update(walk.facts())
    facts = emulator.observe(_view(uc, found), end, placed, tracker, out)
    facts["engine"] = "unicorn"
    return facts


def _machine(
    found: Layout, entry: int, placed: list[emulator.Placed], tracker: emulator.Tracker, limits: plan.Budget, w: _Watch
) -> Any:
    """A unicorn CPU in angr's call state for the procedure at entry, its hooks set."""
    import unicorn
    from unicorn import x86_const as x

    uc = _image(found)
    uc.mem_map(STACK_END - STACK_SIZE, STACK_SIZE, unicorn.UC_PROT_READ | unicorn.UC_PROT_WRITE)
    sp = STACK_END - 8
    uc.mem_write(sp, found.deadend.to_bytes(8, "little"))
    for p in placed:
        if p.buffer is not None:
            address, data, size, writable = p.buffer
            if size <= 0:
                raise Declined("an empty buffer")
            span = _align(size, PAGE)
            uc.mem_map(address, span, unicorn.UC_PROT_READ | unicorn.UC_PROT_WRITE)
            uc.mem_write(address, data)
            if not writable:
                uc.mem_protect(address, span, unicorn.UC_PROT_READ)
    for p, name in zip(placed, ARGUMENT_REGISTERS):
        uc.reg_write(getattr(x, f"UC_X86_REG_{name.upper()}"), p.value)
    uc.reg_write(x.UC_X86_REG_RSP, sp)
    uc.reg_write(x.UC_X86_REG_RIP, entry)

    def decline(why: str) -> bool:
        w.declined = w.declined or why
        uc.emu_stop()
        return False

    def block(_uc: Any, address: int, size: int, _data: Any) -> None:
        # a cancel (the worker's SIGUSR1 handler runs in this callback) stops the run before the next block, not
        # at the end of the chunk: a chunk of write-heavy blocks runs for a noticeable time in these hooks
        if len(w.blocks) >= w.limit or address in found.hooked or emulator.Interrupt.requested:
            w.pending = address
            uc.emu_stop()
            return
        w.blocks.append((address, size))

    def wrote(_uc: Any, _access: int, address: int, size: int, _value: int, _data: Any) -> None:
        if tracker.over(address, size, limits.memory_bytes):
            decline("the memory budget (angr counts the write that passed it)")

    def poisoned(_uc: Any, _access: int, address: int, _size: int, _value: int, _data: Any) -> None:
        decline(f"memory angr decides at 0x{address:x}")

    def fetched(_uc: Any, address: int, _size: int, _data: Any) -> None:
        decline(f"code between segments at 0x{address:x}")

    uc.hook_add(unicorn.UC_HOOK_BLOCK, block)
    uc.hook_add(unicorn.UC_HOOK_MEM_WRITE, wrote)
    for start, end in found.poisoned:
        uc.hook_add(unicorn.UC_HOOK_MEM_READ | unicorn.UC_HOOK_MEM_WRITE, poisoned, begin=start, end=end - 1)
        uc.hook_add(unicorn.UC_HOOK_CODE, fetched, begin=start, end=end - 1)
    uc.hook_add(
        unicorn.UC_HOOK_MEM_UNMAPPED | unicorn.UC_HOOK_MEM_PROT,
        lambda _uc, _access, address, *_: decline(f"a fault at 0x{address:x}"),
    )
    uc.hook_add(unicorn.UC_HOOK_INTR, lambda *_: decline("an interrupt"))
    uc.hook_add(unicorn.UC_HOOK_INSN, lambda *_: decline("a system call"), aux1=x.UC_X86_INS_SYSCALL)
    uc.hook_add(unicorn.UC_HOOK_INSN, lambda *_: decline("a system call"), aux1=x.UC_X86_INS_SYSENTER)
    return uc


def _image(found: Layout) -> Any:
    """A unicorn x86-64 CPU with the image's pages mapped."""
    import unicorn as typed

    unicorn: Any = typed  # its Uc is, to the type checker, the untyped Python 2 binding (chosen when it runs)
    uc = unicorn.Uc(unicorn.UC_ARCH_X86, unicorn.UC_MODE_64)
    for page, body, prot in found.pages:
        uc.mem_map(page, PAGE, prot)
        uc.mem_write(page, body)
    return uc


# ------------------------------------------------------------- IRELATIVE resolvers

RESOLVER_INSTRUCTIONS = 10_000  # what one IFUNC resolver may execute here (glibc's run a few dozen)
RESOLVER_STACK = 0x10000
FILLS = (0, 0x5A5A_5A5A_5A5A_5A5A)  # the registers' and the stack's bytes in the two runs of a resolver
REGISTERS = ("rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15")


def resolver(found: Layout) -> Callable[[int], int | None]:
    """What angr's IRELATIVE resolution can ask instead of emulating each resolver in its VEX engine: the
    address the IFUNC resolver at an address returns, computed in unicorn, or None when angr's own resolver
    must compute it. angr loads a static glibc executable by running each of its IRELATIVE resolvers (about
    80% of the project's load: 2-3 s of 2.5-3.5 s at load 13); they read only the image (the CPU features
    glibc keeps there, zero in the file). angr runs them with the registers and the stack unknown
    (symbolic): here each runs twice, once with them zero and once filled with other bytes, and its answer
    is taken only when both runs execute the same blocks and return the same value, reading nothing outside
    the image and that stack and writing nothing but that stack (else angr resolves it, as before).
    tests/native/test_native_emulation_direct.py checks every slot against angr's."""
    machine = _Resolvers(found)

    def resolve(address: int) -> int | None:
        if address in found.hooked:
            return None
        runs = [machine.run(address, fill) for fill in FILLS]
        return runs[0][0] if runs[0] is not None and runs[0] == runs[1] else None

    return resolve


class _Resolvers:
    """One unicorn CPU with the image mapped read-only in effect (a write to it refuses the run) and a small
    stack: every resolver runs on it from the same memory."""

    def __init__(self, found: Layout) -> None:
        import unicorn
        from unicorn import x86_const as x

        self.found, self.x = found, x
        self.uc = uc = _image(found)
        uc.mem_map(STACK_END - RESOLVER_STACK, RESOLVER_STACK, unicorn.UC_PROT_READ | unicorn.UC_PROT_WRITE)
        self.blocks: list[int] = []
        self.refused = False

        def stop(*_: Any) -> bool:
            self.refused = True
            uc.emu_stop()
            return False

        low, high = found.image
        uc.hook_add(unicorn.UC_HOOK_BLOCK, lambda _uc, address, _size, _data: self.blocks.append(address))
        uc.hook_add(unicorn.UC_HOOK_MEM_WRITE, stop, begin=low, end=high)
        for start, end in found.poisoned:
            uc.hook_add(unicorn.UC_HOOK_MEM_READ, stop, begin=start, end=end - 1)
            uc.hook_add(unicorn.UC_HOOK_CODE, stop, begin=start, end=end - 1)
        uc.hook_add(unicorn.UC_HOOK_MEM_UNMAPPED | unicorn.UC_HOOK_MEM_PROT, stop)
        uc.hook_add(unicorn.UC_HOOK_INTR, stop)
        uc.hook_add(unicorn.UC_HOOK_INSN, stop, aux1=x.UC_X86_INS_SYSCALL)

    def run(self, address: int, fill: int) -> tuple[int, tuple[int, ...]] | None:
        from unicorn.unicorn import UcError  # unicorn's package does not re-export it for the type checker

        uc, x, deadend = self.uc, self.x, self.found.deadend
        uc.mem_write(STACK_END - RESOLVER_STACK, fill.to_bytes(8, "little") * (RESOLVER_STACK // 8))
        uc.mem_write(STACK_END - 8, deadend.to_bytes(8, "little"))
        for name in REGISTERS:
            uc.reg_write(getattr(x, f"UC_X86_REG_{name.upper()}"), fill)
        uc.reg_write(x.UC_X86_REG_RSP, STACK_END - 8)
        self.blocks, self.refused = [], False
        try:
            uc.emu_start(address, deadend, count=RESOLVER_INSTRUCTIONS)
        except UcError:
            return None
        if self.refused or uc.reg_read(x.UC_X86_REG_RIP) != deadend:
            return None
        return uc.reg_read(x.UC_X86_REG_RAX), tuple(self.blocks)


def _lifter(uc: Any) -> Callable[[int, int], native_blocks.Block]:
    """A block unicorn executed as angr's answer reads it (VEX's instruction addresses; a call at its end)."""
    import capstone

    cs = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
    cache: dict[tuple[int, int], native_blocks.Block] = {}

    def lift(address: int, size: int) -> native_blocks.Block:
        known = cache.get((address, size))
        if known is not None:
            return known
        code = bytes(uc.mem_read(address, size))
        decoded = list(cs.disasm_lite(code, address))
        used = sum(n for _, n, _, _ in decoded)
        if used != size or not decoded or len(decoded) > VEX_MAX_INSTRUCTIONS:
            raise Declined(f"a block at 0x{address:x} VEX would lift differently")
        for _, _, mnemonic, op in decoded[:-1]:
            if mnemonic in VEX_BREAKS or mnemonic.startswith("rep") or "rep" in op.split():
                raise Declined(f"{mnemonic} at 0x{address:x} ends a VEX block")
        last = decoded[-1][2]
        if last in VEX_BREAKS or last.startswith(("rep", "lcall", "ljmp", "iret")):
            raise Declined(f"{last} at 0x{address:x}")
        made = native_blocks.Block(instructions=tuple(a for a, _, _, _ in decoded), call=last == "call")
        cache[(address, size)] = made
        return made

    return lift


def _view(uc: Any, found: Layout) -> emulator.View:
    from unicorn.x86_const import UC_X86_REG_RAX

    def read(address: int, size: int) -> bytes:
        """As emulator._read: the bytes, or those before the first unmapped one."""
        if size <= 0:
            return b""
        found.check(address, size)
        try:
            return bytes(uc.mem_read(address, size))
        except Exception:  # noqa: BLE001 - partly unmapped: read byte by byte
            data = bytearray()
            for i in range(size):
                try:
                    data += uc.mem_read(address + i, 1)
                except Exception:  # noqa: BLE001
                    break
            return bytes(data)

    return emulator.View(
        read=read,
        section=found.section,
        image=found.image,
        register="rax",
        returned=lambda: uc.reg_read(UC_X86_REG_RAX),
        bits=64,
    )


def addresses(found: Layout) -> tuple[Callable[[str], int], Callable[[int | None], str | None]]:
    """The worker's address conversions (Analysis.into/out) for an ET_EXEC image, which is never rebased."""
    low, high = found.image

    def out(address: int | None) -> str | None:
        if address is None:
            return None
        return f"0x{address:x}" if low <= address <= high else f"extern:0x{address:x}"

    def into(text: str) -> int:
        space, _, value = text.rpartition(":")
        return int(value, 16) if value.lower().startswith("0x") else int(value, 16 if space else 0)

    return into, out
