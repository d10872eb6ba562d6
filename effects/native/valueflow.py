"""One function's value flow as angr's ReachingDefinitionsAnalysis sees it, run inside the worker.

An operation is one machine instruction; its inputs are the storage locations (registers, entry-relative
stack slots, absolute memory) whose reaching definitions it reads, its output the location it defines.
Parameters are the argument locations angr's calling-convention analysis reports. The answer is plain
data: the core (rea/native/values.py) decides the trace, the budgets and the wire shape."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the worker's function work imports this module
    from effects.native.function_work import FunctionWork

MAX_INSTRUCTIONS = 4_000  # larger functions are not analysed: RDA's cost grows with blocks times locations
MAX_ITERATIONS = 8  # RDA fixpoint visits per block; a loop that has not settled by then is reported truncated
FLAGS = "flags"
RETURN_ADDRESS = {"kind": "other", "size_bytes": 8, "location": "return-address", "constant_hex": None}


class Unavailable(Exception):
    """This function has no value flow to report (an import, too large, no calling convention)."""


def value_flow(analysis: FunctionWork, params: dict[str, Any], emit: Callable[[str], None]) -> dict[str, Any]:
    """`local` (an indexed snapshot gave the extent): the function's own graph, built in a fraction of a
    second, instead of the whole-program CFG that takes minutes on a large static binary."""
    if params.get("local"):
        function, model = analysis.local(params, emit)
    else:
        function, model = analysis.function(params["address"]), analysis.cfg.model
    if function.is_simprocedure or function.is_plt:
        return _unavailable(function, f"{function.name} is an import stub; it has no body to trace")
    blocks = sorted((b for b in function.blocks if b.size), key=lambda b: b.addr)
    instructions = [insn for b in blocks for insn in analysis.project.factory.block(b.addr, size=b.size).capstone.insns]
    if len(instructions) > MAX_INSTRUCTIONS:
        return _unavailable(
            function, f"{len(instructions)} instructions exceed the {MAX_INSTRUCTIONS}-instruction value-flow bound"
        )
    emit(f"reaching definitions of {function.name}")
    return _Flow(analysis, function, model, instructions).run()


def resolved_calls(function: Any, model: Any) -> dict[int, int | None]:
    """Call instruction -> the target the function's graph resolved (None: indirect and unresolved; angr's
    Unresolvable* placeholders are not targets). angr names a call site by its block, which the call ends."""
    functions = function._function_manager  # the knowledge base the function's graph filled
    found: dict[int, int | None] = {}
    for site in function.get_call_sites():
        target = function.get_call_target(site)
        callee = functions.function(addr=target) if target is not None else None
        if callee is not None and callee.name.startswith("Unresolvable"):
            target = None
        addrs = getattr(model.get_any_node(site), "instruction_addrs", None)
        found[int(addrs[-1]) if addrs else site] = target
    return found


def _unavailable(function: Any, reason: str) -> dict[str, Any]:
    return {"name": function.name, "available": False, "reason": reason}


class _Flow:
    """The RDA of one function and its projection onto instructions."""

    def __init__(self, analysis: FunctionWork, function: Any, model: Any, instructions: list[Any]) -> None:
        self.a, self.f, self.model, self.insns = analysis, function, model, instructions
        self.arch = analysis.project.arch
        self.at = {insn.address: i for i, insn in enumerate(instructions)}
        self.calls = self._calls()
        self.rets = sorted({r for r in (self._ret_insn(b) for b in function.endpoints) if r is not None})

    def run(self) -> dict[str, Any]:
        from angr.knowledge_plugins.key_definitions.constants import OP_BEFORE  # noqa: PLC0415

        project = self.a.project
        cca = project.analyses.CallingConvention(self.f, cfg=self.model, collect_facts=True, analyze_callsites=True)
        rets = self.rets
        points = [("insn", r, OP_BEFORE) for r in rets]
        rda = project.analyses.ReachingDefinitions(
            subject=self.f,
            func_graph=self.f.graph,
            cc=cca.cc,
            dep_graph=False,
            track_tmps=False,
            max_iterations=MAX_ITERATIONS,
            observation_points=points,
        )
        inputs: dict[int, list[tuple[Any, str]]] = {i: [] for i in range(len(self.insns))}
        outputs: dict[int, list[Any]] = {i: [] for i in range(len(self.insns))}
        uses: list[tuple[Any, int]] = []  # (definition, using instruction index)
        for definition in rda.all_definitions:
            here = self._index(definition.codeloc)
            key = self._key(definition.atom)
            if key is None:
                continue
            if here is not None:
                outputs[here].append(definition.atom)
            for use in rda.all_uses.get_uses(definition):
                user = self._index(use)
                if user is not None:
                    uses.append((definition, user))
                    if key not in [k for _, k in inputs[user]]:
                        inputs[user].append((definition.atom, key))
        returned = self._returned(rda, rets, OP_BEFORE)
        for index, definitions in returned.items():
            for definition in definitions:
                uses.append((definition, index))
        return self._answer(cca, inputs, outputs, uses, returned)

    # ------------------------------------------------------------------ projection

    def _answer(
        self,
        cca: Any,
        inputs: dict[int, list[tuple[Any, str]]],
        outputs: dict[int, list[Any]],
        uses: list[tuple[Any, int]],
        returned: dict[int, set[Any]],
    ) -> dict[str, Any]:
        parameters = self._parameters(cca)
        operations, slots = [], {}
        for i, insn in enumerate(self.insns):
            ins, out = self._operands(i, insn, inputs[i], outputs[i], returned, uses)
            slots[i] = ins
            operations.append(
                {
                    "id": self.a.out(insn.address),
                    "address": self.a.out(insn.address),
                    "sequence": i,
                    "opcode": self._opcode(insn),
                    "is_dead": False,
                    "block_membership": "member",
                    "inputs": [v for _, v in ins],
                    "output": out,
                }
            )
        def_use, parameter_uses = set(), set()
        for definition, user in uses:
            key = self._key(definition.atom)
            where = [k for k, _ in slots[user]]
            if key is None or key not in where:
                continue
            source = self._index(definition.codeloc)
            if source is not None:
                def_use.add((self.insns[source].address, self.insns[user].address, where.index(key)))
            elif self._external(definition.codeloc) and key in parameters["keys"]:
                parameter_uses.add((parameters["keys"][key], self.insns[user].address, where.index(key)))
        calls = [
            {"operation": self.a.out(addr), "target": self.a.out(target)} for addr, target in sorted(self.calls.items())
        ]
        return {
            "name": self.f.name,
            "available": True,
            "instructions": len(self.insns),
            "calling_convention": None if cca.cc is None else type(cca.cc).__name__,
            "operations": operations,
            "def_use": [
                {"definition": self.a.out(d), "use": self.a.out(u), "input_index": k} for d, u, k in sorted(def_use)
            ],
            "parameters": parameters["rows"],
            "parameter_uses": [
                {"ordinal": o, "use": self.a.out(u), "input_index": k} for o, u, k in sorted(parameter_uses)
            ],
            "calls": calls,
        }

    def _operands(
        self,
        i: int,
        insn: Any,
        used: list[tuple[Any, str]],
        defined: list[Any],
        returned: dict[int, set[Any]],
        uses: list[tuple[Any, int]],
    ) -> tuple[list[tuple[str, dict[str, Any]]], dict[str, Any] | None]:
        """(key, varnode) inputs in a stable order and the one output shown: a call's target comes first and
        its arguments follow in calling-convention order; a return's value is its second input."""
        ordered = sorted(used, key=lambda pair: self._rank(pair[1]))
        ins = [(key, self._varnode(atom)) for atom, key in ordered]
        keyed = {key: a for a in defined if (key := self._key(a))}
        out_atoms = sorted(keyed.items(), key=lambda kv: self._rank(kv[0]))
        output = None
        if insn.address in self.calls:
            target = self.calls[insn.address]
            head = {
                "kind": "address",
                "size_bytes": self.arch.bytes,
                "location": self.a.out(target),
                "constant_hex": None,
            }
            ins = [("call-target", head if target is not None else {**head, "kind": "other", "location": None}), *ins]
            ret = self._return_key()
            if any(self._key(d.atom) == ret and self._index(d.codeloc) == i for d, _ in uses):
                output = next((self._varnode(a) for k, a in out_atoms if k == ret), None)
        elif i in returned:
            value = [("return-address", RETURN_ADDRESS)]
            if returned[i]:
                atom = next(iter(returned[i])).atom
                value.append((self._key(atom) or "", self._varnode(atom)))
            ins = value + [pair for pair in ins if pair[0] not in {k for k, _ in value}]
        elif out_atoms:
            output = self._varnode(out_atoms[0][1])
        return ins, output

    def _parameters(self, cca: Any) -> dict[str, Any]:
        rows: list[dict[str, Any]] = []
        keys: dict[str, int] = {}
        if cca.cc is None or cca.prototype is None:
            return {"rows": rows, "keys": keys}
        names = list(getattr(cca.prototype, "arg_names", None) or ())
        for ordinal, (arg, loc) in enumerate(zip(cca.prototype.args, cca.cc.arg_locs(cca.prototype))):
            key = self._loc_key(loc)
            rows.append(
                {
                    "ordinal": ordinal,
                    "name": names[ordinal] if ordinal < len(names) and names[ordinal] else f"arg_{ordinal}",
                    "data_type": arg.c_repr(),
                    "storage": key,
                }
            )
            if key is not None:
                keys.setdefault(key, ordinal)
        return {"rows": rows, "keys": keys}

    # ------------------------------------------------------------------ locations

    def _key(self, atom: Any) -> str | None:
        """A stable name for a tracked location; None for what is not traced (constants, temporaries, the
        instruction and stack pointers)."""
        from angr.knowledge_plugins.key_definitions.atoms import MemoryLocation, Register  # noqa: PLC0415

        if isinstance(atom, Register):
            if atom.reg_offset in (self.arch.ip_offset, self.arch.sp_offset):
                return None
            name = self.arch.register_names.get(atom.reg_offset)
            if name is None:
                return None
            return FLAGS if name.startswith("cc_") or name in ("nzcv", "cpsr", "eflags") else name
        if isinstance(atom, MemoryLocation):
            place: Any = atom.addr  # angr's SpOffset | int | BV: an SpOffset when on the stack
            if atom.is_on_stack and isinstance(place.offset, int):
                offset = place.offset
                return f"stack:{'-' if offset < 0 else '+'}0x{abs(offset):x}"
            if isinstance(atom.addr, int):
                return self.a.out(atom.addr)
        return None

    def _loc_key(self, loc: Any) -> str | None:
        reg = getattr(loc, "reg_name", None)
        if reg is not None:
            offset = self.arch.registers[reg][0]
            name: str = self.arch.register_names.get(offset, reg)
            return name
        offset = getattr(loc, "stack_offset", None)
        return None if offset is None else f"stack:{'-' if offset < 0 else '+'}0x{abs(offset):x}"

    def _varnode(self, atom: Any) -> dict[str, Any]:
        key = self._key(atom) or "other"
        size = getattr(atom, "size", None)
        kind = "register" if not key.startswith(("stack:", "0x", "extern:")) else "other"
        if key.startswith(("0x", "extern:")):
            kind = "address"
        return {"kind": kind, "size_bytes": size if isinstance(size, int) else 0, "location": key, "constant_hex": None}

    def _rank(self, key: str) -> tuple[int, int, str]:
        """Arguments first in calling-convention order, then other registers, flags, stack, memory."""
        order = self._arg_order()
        if key in order:
            return (0, order.index(key), key)
        if key == FLAGS:
            return (2, 0, key)
        if key.startswith("stack:"):
            return (3, 0, key)
        if key.startswith(("0x", "extern:")):
            return (4, 0, key)
        return (1, self.arch.registers.get(key, (1 << 20,))[0], key)

    def _arg_order(self) -> list[str]:
        from angr.calling_conventions import default_cc  # noqa: PLC0415

        cc = default_cc(self.arch.name, platform=getattr(self.a.project.simos, "name", None))
        regs = list(getattr(cc, "ARG_REGS", ()) or ()) if cc is not None else []
        return [self.arch.register_names.get(self.arch.registers[r][0], r) for r in regs if r in self.arch.registers]

    def _return_key(self) -> str | None:
        from angr.calling_conventions import default_cc  # noqa: PLC0415

        cc = default_cc(self.arch.name, platform=getattr(self.a.project.simos, "name", None))
        reg = getattr(cc, "RETURN_VAL", None) if cc is not None else None
        name = getattr(reg, "reg_name", None)
        return None if name is None else self.arch.register_names.get(self.arch.registers[name][0], name)

    # ------------------------------------------------------------------ code

    def _index(self, codeloc: Any) -> int | None:
        addr = getattr(codeloc, "ins_addr", None)
        return self.at.get(addr) if addr is not None else None

    @staticmethod
    def _external(codeloc: Any) -> bool:
        from angr.code_location import ExternalCodeLocation  # noqa: PLC0415

        return isinstance(codeloc, ExternalCodeLocation)

    def _calls(self) -> dict[int, int | None]:
        return resolved_calls(self.f, self.model)

    def _ret_insn(self, block: Any) -> int | None:
        """The return instruction ending an endpoint block (others end in a jump or a call that never returns)."""
        addrs = [a for a in self.at if block.addr <= a < block.addr + block.size]
        last = max(addrs, default=None)
        if last is None or last in self.calls:
            return None
        return last if self.insns[self.at[last]].mnemonic.startswith("ret") else None

    def _returned(self, rda: Any, rets: list[int], op_before: Any) -> dict[int, set[Any]]:
        """Each return's reaching definitions of the return register, when made inside this function."""
        key = self._return_key()
        found: dict[int, set[Any]] = {}
        for ret in rets:
            found[self.at[ret]] = set()
            state = rda.get_reaching_definitions_by_insn(ret, op_before) if key else None
            if state is None:
                continue
            offset, size = self.arch.registers[key]
            inside = {d for d in state.get_register_definitions(offset, size) if self._index(d.codeloc) is not None}
            found[self.at[ret]] = inside
        return found

    def _opcode(self, insn: Any) -> str:
        if insn.address in self.calls:
            return "CALL" if self.calls[insn.address] is not None else "CALLIND"
        return "RETURN" if insn.address in self.rets else str(insn.mnemonic).upper()
