"""inspect_evm_interface on contracts compiled here by solc (the npm solcjs in tests/fixtures/evm), checked against the
compiler's own output: its method identifiers (solc --hashes) and ABI (inputs, stateMutability)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from support import npm_fixture, rea_command

HERE = Path(__file__).parents[1] / "fixtures"
CONTRACTS = {
    "Demo": """
contract Demo {
    uint256 public total;
    mapping(address => uint256) public balances;
    event Paid(address who, uint256 amount);
    function deposit() external payable { balances[msg.sender] += msg.value; emit Paid(msg.sender, msg.value); }
    function set(uint256 v, address who, bool flag, uint8 small) external { total = v; if (flag) balances[who] = small; }
    function peek(address who) external view returns (uint256) { return balances[who]; }
    function add(uint256 a, uint256 b) external pure returns (uint256) { return a + b; }
    function label(string calldata s, int16 x, bytes4 tag) external pure returns (uint256) {
        return bytes(s).length + uint16(x) + uint32(tag);
    }
}""",
    "Guarded": """
contract Guarded {
    uint256 x;
    function a(uint128 v) external { x = v; }
    function b() external view returns (uint256) { return block.timestamp + x; }
    function c(bytes calldata d, uint256[] calldata e) external pure returns (uint256) { return d.length + e.length; }
    function e(address payable to) external { to.transfer(1); }
}""",
}
HEADER = "// SPDX-License-Identifier: MIT\npragma solidity ^0.8.20;\n"
# our reading of a type without a cleanup (uint256) or a dynamic head (bytes); the module docstring says why
AS_READ = {"string": "bytes", "uint256[]": "bytes"}


def _compile(name: str, optimize: bool) -> dict:
    solc = npm_fixture(HERE / "evm") / "solc" / "solc.js"
    request = {
        "language": "Solidity",
        "sources": {"c.sol": {"content": HEADER + CONTRACTS[name]}},
        "settings": {
            "optimizer": {"enabled": optimize, "runs": 200},
            "outputSelection": {"*": {"*": ["abi", "evm.deployedBytecode.object", "evm.methodIdentifiers"]}},
        },
    }
    done = subprocess.run(
        ["node", str(solc), "--standard-json"], input=json.dumps(request), capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)["contracts"]["c.sol"][name]


@pytest.fixture(scope="module")
def compiled() -> dict[tuple[str, bool], dict]:
    return {(name, opt): _compile(name, opt) for name in CONTRACTS for opt in (False, True)}


def _call(path: Path, encoding: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(HERE.parent)}
    done = subprocess.run(
        [
            *rea_command(),
            "call",
            "inspect_evm_interface",
            "--path",
            str(path),
            "--encoding",
            encoding,
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    return json.loads(done.stdout)


def _expected(contract: dict) -> dict[str, tuple[str, str]]:
    """selector -> (argument types, stateMutability), from solc's method identifiers and ABI."""
    by_name = {f["name"]: f for f in contract["abi"] if f["type"] == "function"}
    out = {}
    for signature, selector in contract["evm"]["methodIdentifiers"].items():
        f = by_name[signature.split("(")[0]]
        args = ",".join(AS_READ.get(i["type"], i["type"]) for i in f["inputs"])
        out["0x" + selector] = (args, f["stateMutability"])
    return out


@pytest.mark.parametrize("name", sorted(CONTRACTS))
@pytest.mark.slow
def test_selectors_arguments_and_mutability_match_solc(compiled, name):
    from rea.evm.interface import interface_of

    for optimize in (False, True):
        contract = compiled[(name, optimize)]
        found = interface_of(bytes.fromhex(contract["evm"]["deployedBytecode"]["object"]))
        expected = _expected(contract)
        assert {f.selector for f in found.functions} == set(expected)
        for f in found.functions:
            args, mutability = expected[f.selector]
            assert f.inferred_state_mutability == mutability, (name, optimize, f)
            if not optimize:  # the optimizer folds some cleanups (bytes4) away: types are checked unoptimized
                assert f.inferred_arguments == args, (name, f)
            else:
                assert len(f.inferred_arguments.split(",")) == len(args.split(",")) or not args


@pytest.mark.slow
def test_the_cli_reads_hex_and_raw_carriers_alike(compiled, tmp_path):
    code = compiled[("Demo", False)]["evm"]["deployedBytecode"]["object"]
    (tmp_path / "runtime.hex").write_text(f"  0x{code.upper()}\n")
    (tmp_path / "runtime.bin").write_bytes(bytes.fromhex(code))
    hexed = _call(tmp_path / "runtime.hex", "hex")["normalized_result"]
    raw = _call(tmp_path / "runtime.bin", "raw")["normalized_result"]
    assert hexed["bytecode"] == raw["bytecode"] and hexed["functions"] == raw["functions"]
    assert hexed["bytecode"]["hex"] == code.lower() and hexed["artifact"]["encoding"] == "hex"
    assert hexed["artifact"]["bytes"] == len(code) + 5 and raw["artifact"]["bytes"] == len(code) // 2
    assert {f["selector"] for f in raw["functions"]} == set(_expected(compiled[("Demo", False)]))


def test_hostile_carriers_are_refused_with_the_argument_named(tmp_path):
    from effects.evm.carrier import read_carrier
    from rea.evm.bytecode import decode_carrier
    from rea.evm.effects import ReadEvmCarrier

    for text in (b"0x6001f", b"60 01", b"\xef\xbb\xbf6001", b"0x60\xc2\xa001"):
        error = decode_carrier(text, "hex").failure()
        assert error.code == "invalid_request" and error.details["field"] == "encoding", text
    os.mkfifo(tmp_path / "fifo")  # refused before any open: an open of a FIFO would block
    for name in ("fifo", "missing"):
        error = read_carrier(ReadEvmCarrier(path=str(tmp_path / name))).failure()
        assert error.code == "invalid_request" and error.details["field"] == "path"
    (tmp_path / "big.bin").write_bytes(bytes(65))
    assert read_carrier(ReadEvmCarrier(path=str(tmp_path / "big.bin"), max_bytes=64)).failure().code == (
        "resource_constraint"
    )


@pytest.mark.slow
def test_an_eof_container_is_refused_through_the_cli(tmp_path):
    (tmp_path / "eof.hex").write_text("ef000101")
    assert _call(tmp_path / "eof.hex", "hex")["error"]["code"] == "capability_unavailable"
