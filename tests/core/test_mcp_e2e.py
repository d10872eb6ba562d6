"""End to end over a real stdio pipe with the Python MCP SDK client."""

from __future__ import annotations

import json
import os

import anyio
import jsonschema
import pytest

from mcp_client import catalog_tools, connect, err, notification_methods, ok, run, tool_list
from rea.canonical_json import canonical_sha256
from support import clean_env, ledger, make_evidence, rea_command, write_bundle

pytestmark = pytest.mark.slow
MARK = {"provenance": {"untrusted_content": True, "source": "analysis_target"}}


def test_tools_list_is_complete_with_valid_schemas():
    async def main():
        async with connect() as s:
            tools = (await s.list_tools()).tools
            return [t.model_dump(by_alias=True, exclude_none=True) for t in tools]

    tools = run(main)
    names = {t["name"] for t in tools}
    from rea.catalog import BY_NAME

    assert names == set(BY_NAME) and {"binary_session", "open_binary", "analyze_function"} <= names
    assert tools == catalog_tools()  # every definition whole, schemas included
    for tool in tools:
        for key in ("inputSchema", "outputSchema"):
            schema = tool[key]
            jsonschema.Draft202012Validator.check_schema(schema)
            assert schema["type"] == "object" and "$ref" not in schema
        body = {k: v for k, v in tool["outputSchema"].items() if k != "$id"}
        assert tool["outputSchema"]["$id"] == f"urn:rea:schema:sha256:{canonical_sha256(body)}"  # C50, as advertised
        assert set(tool["annotations"]) >= {"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}


def test_tools_list_is_the_whole_catalog_through_open_close_and_a_provider_failure(tmp_path):
    """tools/list never changes (whole definitions compared) and notifications/tools/list_changed is never sent."""
    tap: list = []

    async def main():
        # a 1 ms startup deadline makes the angr start fail for real: a provider health transition; an empty cache of
        # its own, or an earlier `rea analyze /usr/bin/true` (the Quick start's first command) answers from the cache
        async with connect(tap=tap, REA_ANGR_STARTUP_TIMEOUT_MS="1", REA_CACHE_DIR=str(tmp_path / "cache")) as s:
            lists = {"initial": await tool_list(s)}
            ok(await s.call_tool("open_binary", {"path": "/usr/bin/true"}))
            lists["opened"] = await tool_list(s)
            # listings answer from the fast index (no engine); pseudocode starts angr, which fails to start
            listed = (await s.call_tool("list_procedures", {"limit": 1})).structured_content["normalized_result"]
            failed = await s.call_tool("procedure_pseudo_code", {"procedure": listed[0]["address"]})
            lists["provider_failed"] = await tool_list(s)
            state = ok(await s.call_tool("binary_session", {}))
            ok(await s.call_tool("close_binary", {}))
            lists["closed"] = await tool_list(s)
            seen = []

            async def on_progress(progress, total, message):
                seen.append(message)

            ok(await s.call_tool("open_binary", {"path": "/usr/bin/true"}, progress_callback=on_progress))
            lists["reopened"] = await tool_list(s)
            await s.send_ping()  # anything the server sent before this answer has been read
            return lists, failed, state

    lists, failed, state = run(main)
    assert err(failed, "provider_timeout")["details"]["phase"] == "startup"
    assert state["open"] is True
    expected = catalog_tools()
    for moment, tools in lists.items():
        assert tools == expected, moment
    initialized = next(m.message for m in tap if getattr(m.message, "id", None) is not None)
    assert initialized.result["capabilities"]["tools"] == {"listChanged": False}
    methods = notification_methods(tap)
    assert "notifications/tools/list_changed" not in methods
    assert "notifications/progress" in methods  # the tap does see the notifications the server sends
    assert set(methods) <= {"notifications/progress", "notifications/message"}, methods


SHA256 = {"type": "string", "pattern": "^[a-f0-9]{64}$"}
IDENTITY = {
    "type": "object",
    "required": ["id", "name", "version"],
    "properties": {"id": {"type": "string"}, "name": {"type": "string"}, "version": {"type": ["string", "null"]}},
}
ARCHITECTURE = {"enum": ["x86", "x86_64", "arm", "arm64", None]}
# The fields a REA 6.x client reads, with the reference's types (toolOutputSchemaGroups sessionOutputSchemas,
# toolOutputSchemaPrimitives, evidenceRecordSummary). Extra fields of ours are allowed; these must hold.
REFERENCE_OPEN = {
    "type": "object",
    "required": ["path", "format", "kind", "loaderArgs", "sha256", "architecture"],
    "properties": {
        "path": {"type": "string"},
        "format": {"type": "string"},
        "kind": {"enum": ["executable", "database", "archive", "artifact"]},
        "loaderArgs": {"type": "array", "items": {"type": "string"}},
        "sha256": SHA256,
        "architecture": ARCHITECTURE,
    },
}
REFERENCE_SESSION = {
    "type": "object",
    "required": [
        "open",
        "provider",
        "providers",
        "capabilities",
        "analysis_run",
        "analysis_activity",
        "analysis_provider_binding",
        "analysis_provider_candidates",
        "tool_availability",
        "client_features",
        "server_identity",
    ],
    "properties": {
        "open": {"type": "boolean"},
        "provider": IDENTITY,
        "providers": {"type": "array", "items": IDENTITY},
        "analysis_activity": {
            "type": "object",
            "required": ["status", "providers"],
            "properties": {"status": {"enum": ["not_observed", "idle", "busy"]}, "providers": {"type": "array"}},
        },
        "analysis_provider_binding": {
            "anyOf": [
                {"type": "null"},
                {
                    "type": "object",
                    "required": ["provider", "selection_source", "analysis_profile"],
                    "properties": {
                        "provider": IDENTITY,
                        "selection_source": {"enum": ["request", "environment", "auto-single-candidate"]},
                    },
                },
            ]
        },
        "analysis_provider_candidates": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["provider", "availability", "target_support", "selected", "capabilities"],
                "properties": {
                    "availability": {"type": "object", "required": ["status", "code", "reason", "diagnostics"]},
                    "target_support": {"type": "object", "required": ["status", "code", "reason", "diagnostics"]},
                },
            },
        },
        "client_features": {
            "type": "object",
            "required": ["elicitation_form", "elicitation_url", "roots", "sampling"],
            "additionalProperties": {"type": "boolean"},
        },
        "server_identity": {
            "type": "object",
            "required": [
                "package",
                "server",
                "sdk",
                "negotiated_protocol_version",
                "client",
                "skill",
                "catalog",
                "protocol_features",
                "alignment",
            ],
            "properties": {
                "package": {
                    "type": "object",
                    "required": ["name", "version", "root_path", "build_commit"],
                    "properties": {"root_path": {"type": "string"}, "build_commit": {"type": ["string", "null"]}},
                },
                "server": {"type": "object", "required": ["name", "version", "started_at", "command_path"]},
                "sdk": {
                    "type": "object",
                    "required": ["server", "client_test", "core"],
                    "properties": {k: {"type": "string"} for k in ("server", "client_test", "core")},
                },
                "skill": {
                    "type": "object",
                    "required": ["name", "expected_version"],
                    "properties": {"name": {"type": "string"}, "expected_version": {"type": "string"}},
                },
                "protocol_features": {
                    "type": "object",
                    "required": ["progress", "cancellation", "elicitation"],
                    "additionalProperties": {"type": "boolean"},
                },
                "alignment": {"type": "object", "required": ["state", "reasons", "remediation"]},
            },
        },
    },
    "if": {"properties": {"open": {"const": True}}},
    "then": {
        "required": ["path", "format", "kind", "sha256", "architecture"],
        "properties": REFERENCE_OPEN["properties"],
    },
}
REFERENCE_SUMMARY = {
    "type": "object",
    "required": ["kind", "filters", "total_retained_records", "matching_records", "unknown_revisions", "records"],
    "properties": {
        "kind": {"const": "evidence-bundle-summary"},
        "records": {
            "type": "array",
            "items": {
                "type": "object",
                "required": [
                    "evidence_id",
                    "subject",
                    "provider",
                    "operation",
                    "confidence",
                    "authority",
                    "analysis_profile_digest",
                    "retention",
                    "limitation_count",
                    "native_dossier",
                ],
                "properties": {
                    "retention": {"const": "complete-record"},
                    "native_dossier": {"type": "object", "required": ["available"]},
                },
            },
        },
    },
}


def test_every_session_tool_end_to_end(tmp_path):
    bundle = write_bundle(tmp_path / "in.json", ledger(5))
    export = tmp_path / "out.json"

    async def main():
        async with connect() as s:
            before_tools = await tool_list(s)
            before = ok(await s.call_tool("binary_session", {}))
            assert before["open"] is False and before["analysis_run"] is None
            assert before["server_identity"]["negotiated_protocol_version"]
            opened = ok(await s.call_tool("open_binary", {"path": "/usr/bin/true"}))
            tools_open = await tool_list(s)
            imported = ok(await s.call_tool("import_evidence_bundle", {"path": str(bundle)}))
            assert imported == {"imported": 5, "unknowns_added": 0, "total": 5}
            unknown = ok(
                await s.call_tool(
                    "record_unknown", {"question": "Is the config signed?", "domain": "integrity", "severity": "medium"}
                )
            )
            assert unknown["scope_digest"] == opened["sha256"]
            second = ok(
                await s.call_tool(
                    "update_unknown",
                    {"unknown_id": unknown["unknown_id"], "expected_revision": 1, "status": "investigating"},
                )
            )
            conflict = err(
                await s.call_tool(
                    "update_unknown", {"unknown_id": unknown["unknown_id"], "expected_revision": 1, "status": "blocked"}
                ),
                "revision_conflict",
            )
            listed = ok(await s.call_tool("list_unknowns", {"offset": 0, "limit": 1}))
            summary = ok(
                await s.call_tool(
                    "get_evidence_bundle", {"detail": "summary", "filters": {"operation": "update_unknown"}}
                )
            )
            complete = ok(await s.call_tool("get_evidence_bundle", {}))
            exported = ok(await s.call_tool("export_evidence_bundle", {"path": str(export)}))
            during = ok(await s.call_tool("binary_session", {}))
            closing = await s.call_tool("close_binary", {})
            closed_again = await s.call_tool("close_binary", {"overwrite": False})
            after = ok(await s.call_tool("binary_session", {}))
            tools_after = await tool_list(s)
            reimported = ok(await s.call_tool("import_evidence_bundle", {"path": str(export)}))
            return locals()

    r = run(main)
    opened, during, before = r["opened"], r["during"], r["before"]
    jsonschema.validate(opened, REFERENCE_OPEN)
    assert (opened["format"], opened["kind"], opened["loaderArgs"]) == ("elf", "executable", [])
    assert opened["path"] == "/usr/bin/true" and opened["architecture"] == HOST_ARCHITECTURE
    assert opened["target"]["sha256"] == opened["sha256"] and opened["target"]["kind"] == "file"  # our extra
    assert opened["analysis_provider_binding"]["selection_source"] == "auto-single-candidate"
    for state in (before, during, r["after"]):
        jsonschema.validate(state, REFERENCE_SESSION)
    assert {k: during[k] for k in ("path", "format", "kind", "sha256", "architecture")} == {
        k: opened[k] for k in ("path", "format", "kind", "sha256", "architecture")
    }
    assert "path" not in before and before["architecture"] is None
    assert during["provider"] == opened["analysis_provider_binding"]["provider"] == during["providers"][0]
    (route,) = during["capabilities"]
    assert route["provider"]["id"] == "angr" and route["shared_limitations"]
    assert {"analyze_function", "list_procedures"} <= {op for g in route["groups"] for op in g["operations"]}
    assert all(set(g["effects"]) <= {"launches_process", "may_write_filesystem"} for g in route["groups"])
    assert before["analysis_activity"] == {"status": "not_observed", "providers": []}
    assert before["client_features"] == {
        "elicitation_form": False,
        "elicitation_url": False,
        "roots": False,
        "sampling": False,
    }
    identity = before["server_identity"]
    assert identity["sdk"]["server"] == identity["sdk"]["version"] and identity["skill"]["name"] == "rea"
    assert identity["protocol_features"]["elicitation"] is False
    assert os.path.isdir(os.path.join(identity["package"]["root_path"], "rea"))
    assert r["second"]["revision"] == 2 and r["conflict"]["retryable"] is True
    assert r["listed"]["total"] == 1 and r["listed"]["next_offset"] is None
    summary = r["summary"]
    jsonschema.validate(summary, REFERENCE_SUMMARY)
    assert (summary["total_retained_records"], summary["matching_records"], summary["unknown_revisions"]) == (7, 1, 2)
    assert summary["records"][0]["operation"] == "update_unknown" and summary["filters"] == {
        "operation": "update_unknown"
    }
    assert summary["records"][0]["native_dossier"] == {"available": False, "reason": "different-operation"}
    # complete detail: result IS the bundle, the same object the exported file holds
    assert len(r["complete"]["records"]) == 7 and r["complete"]["bundle_version"] == 2
    assert json.loads(export.read_bytes()) == r["complete"]
    assert r["exported"]["bytes"] == export.stat().st_size and r["exported"]["records"] == 7
    assert during["analysis_run"]["process_lineage"] == {"status": "not_observed"}
    closing, closed_again = r["closing"], r["closed_again"]
    assert ok(closing) is None and ok(closed_again) is None  # the reference's result without a snapshot
    assert closing.structured_content["closed"]["cleared"] == {"records": 7, "unknowns": 2}
    assert closing.structured_content["closed"]["target"]["sha256"] == opened["sha256"]
    assert closing.structured_content["closed"]["cleanup"] == {"status": "complete", "owned_resources": []}
    assert closed_again.structured_content["closed"]["target"] is None
    assert r["after"]["ledger"] == {"records": 0, "unknowns": 0} and r["after"]["open"] is False
    assert r["reimported"] == {"imported": 7, "unknowns_added": 2, "total": 7}
    assert r["before_tools"] == r["tools_open"] == r["tools_after"] == catalog_tools()  # whole definitions


HOST_ARCHITECTURE = {"x86_64": "x86_64", "amd64": "x86_64", "aarch64": "arm64", "arm64": "arm64"}.get(
    os.uname().machine
)


def test_reference_shaped_lifecycle_calls(tmp_path):
    """Arguments a REA 6.x client sends that this build cannot honour get typed errors, not 'unknown argument'."""
    com = tmp_path / "hello.com"
    com.write_bytes(bytes.fromhex("b409ba0901cd21c3") + b"Hello$")

    async def main():
        async with connect() as s:
            out = {
                "ghidra": await s.call_tool("open_binary", {"path": "/usr/bin/true", "provider_id": "ghidra"}),
                "hopper": await s.call_tool("open_binary", {"path": "/usr/bin/true", "provider_id": "hopper"}),
                "ida": await s.call_tool("open_binary", {"path": "/usr/bin/true", "provider_id": "ida"}),
                "radare": await s.call_tool("open_binary", {"path": "/usr/bin/true", "provider_id": "radare"}),
                "project": await s.call_tool(
                    "open_binary",
                    {"path": "/usr/bin/true", "existing_project": {"project_name": "p", "program": "true"}},
                ),
                "restore": await s.call_tool(
                    "open_binary", {"path": "/usr/bin/true", "snapshot_path": str(tmp_path / "s.json")}
                ),
                "unopened": ok(await s.call_tool("binary_session", {})),
                "com": ok(await s.call_tool("open_binary", {"path": str(com), "format": "dos-com"})),
                "snapshot": await s.call_tool(
                    "close_binary", {"snapshot_path": str(tmp_path / "s.json"), "overwrite": True}
                ),
                "still_open": ok(await s.call_tool("binary_session", {})),
                "relative_export": await s.call_tool("export_evidence_bundle", {"path": "evidence.json"}),
                "relative_import": await s.call_tool("import_evidence_bundle", {"path": "evidence.json"}),
            }
            return out

    r = run(main)
    for provider in ("ghidra", "hopper", "ida"):
        body = err(r[provider], "provider_unavailable")
        details = body["details"]
        assert details["selection"]["requested"] == provider and details["selection"]["source"] == "request"
        assert details["requested_provider_id"] == provider and details["selection_reason"] == "provider_unavailable"
        assert details["candidate_ids"] == ["angr", "ghidra", "hopper", "ida"]
        codes = {c["provider_id"]: c["code"] for c in details["selection"]["candidates"]}
        assert codes["angr"] is None and codes[provider] in PROVIDER_REJECTION_CODES
        assert {x["provider_id"] for x in details["rejections"]} >= {provider}
        assert all(x["code"] in PROVIDER_REJECTION_CODES for x in details["rejections"])
    unknown = err(r["radare"], "capability_unavailable")["details"]
    assert unknown["selection"]["status"] == "unknown_provider" and unknown["selection_reason"] == "unknown_provider"
    assert err(r["project"], "capability_unavailable")["details"] == {
        "reason": "existing_project_unsupported",
        "field": "existing_project",
    }
    assert err(r["restore"], "capability_unavailable")["details"]["field"] == "snapshot_path"
    assert r["unopened"]["open"] is False  # no refused open changed the session
    com_open = r["com"]
    jsonschema.validate(com_open, REFERENCE_OPEN)
    assert (com_open["format"], com_open["kind"], com_open["architecture"]) == ("dos-com", "executable", "x86")
    assert com_open["analysis_provider_binding"] is None and com_open["limitations"]
    assert err(r["snapshot"], "capability_unavailable")["details"]["field"] == "snapshot_path"
    assert r["still_open"]["open"] is True and r["still_open"]["format"] == "dos-com"  # nothing was closed
    assert r["still_open"]["providers"] == [] and r["still_open"]["capabilities"] == []
    for name in ("relative_export", "relative_import"):
        details = err(r[name], "invalid_request")["details"]
        assert details["field"] == "path" and "absolute local path" in details["accepted"]


PROVIDER_REJECTION_CODES = {
    "not_configured",
    "executable_missing",
    "runtime_missing",
    "unsupported_host",
    "unsupported_version",
    "target_kind_unsupported",
    "target_format_unsupported",
    "architecture_unsupported",
    "target_role_unsupported",
    "managed_target_unsupported",
    "open_options_invalid",
    "version_unresolved",
}


def test_update_unknown_takes_the_complete_replacement_state():
    """A reference client sends every field; null clears a nullable one, an omitted field keeps its value."""

    async def main():
        async with connect() as s:
            first = ok(
                await s.call_tool(
                    "record_unknown",
                    {
                        "question": "Which key signs the update?",
                        "domain": "integrity",
                        "severity": "high",
                        "required_authority": "shipped-artifact",
                        "required_confidence": "observed",
                        "required_environment": None,
                        "recommended_probes": [{"operation": "inspect_artifact", "rationale": "find the key"}],
                        "relationships": [],
                    },
                )
            )
            full = ok(
                await s.call_tool(
                    "update_unknown",
                    {
                        "unknown_id": first["unknown_id"],
                        "expected_revision": 1,
                        "status": "investigating",
                        "severity": "medium",
                        "supporting_evidence_ids": [],
                        "contradicting_evidence_ids": [],
                        "required_authority": None,
                        "required_confidence": "derived",
                        "required_environment": None,
                        "recommended_probes": [],
                        "relationships": [],
                        "resolution": None,
                    },
                )
            )
            partial = ok(
                await s.call_tool(
                    "update_unknown", {"unknown_id": first["unknown_id"], "expected_revision": 2, "severity": "low"}
                )
            )
            return first, full, partial

    first, full, partial = run(main)
    assert first["required_authority"] == "shipped-artifact" and len(first["recommended_probes"]) == 1
    assert full["required_authority"] is None and full["recommended_probes"] == [] and full["severity"] == "medium"
    assert partial["severity"] == "low" and partial["status"] == "investigating"
    assert partial["required_confidence"] == "derived" and partial["required_authority"] is None


def test_markers_on_results_and_errors():
    async def main():
        async with connect() as s:
            return {
                "session_ok": await s.call_tool("binary_session", {}),
                "session_err": await s.call_tool("binary_session", {"nope": 1}),
                "record_ok": await s.call_tool("record_unknown", {"question": "q", "domain": "d", "severity": "low"}),
                "record_err": await s.call_tool("record_unknown", {"question": "", "domain": "d", "severity": "low"}),
                "export_err": await s.call_tool("export_evidence_bundle", {"path": "/nonexistent-dir/x.json"}),
                "unknown_tool": await s.call_tool("no_such_tool", {}),
            }

    r = run(main)
    assert r["session_ok"].meta == MARK and r["session_err"].meta == MARK and r["unknown_tool"].meta == MARK
    assert r["record_ok"].meta is None and r["record_err"].meta is None and r["export_err"].meta is None
    body = err(r["session_err"], "invalid_request")
    assert body["details"]["field"] == "nope" and "expected_package_version" in body["details"]["accepted"]
    assert err(r["record_err"], "invalid_request")["details"]["field"] == "question"
    assert "does not exist" in err(r["export_err"], "invalid_request")["message"]
    assert err(r["unknown_tool"], "invalid_request")["details"]["field"] == "name"


def test_bad_inputs_never_crash_the_server(tmp_path):
    bad_json = tmp_path / "bad.json"
    bad_json.write_text("{not json")
    tampered = tmp_path / "tampered.json"
    tree = json.loads(write_bundle(tmp_path / "t.json", ledger(3)).read_text())
    tree["records"][1]["operation"] = "forged"
    tampered.write_text(json.dumps(tree))

    async def main():
        async with connect() as s:
            out = [
                err(await s.call_tool("open_binary", {"path": str(tmp_path / "missing")}), "target_unavailable"),
                err(await s.call_tool("open_binary", {"path": 5}), "invalid_request"),
                err(
                    await s.call_tool("import_evidence_bundle", {"path": str(bad_json)}), "evidence_integrity_mismatch"
                ),
                err(
                    await s.call_tool("import_evidence_bundle", {"path": str(tampered)}), "evidence_integrity_mismatch"
                ),
                err(await s.call_tool("import_evidence_bundle", {"path": str(tmp_path)}), "invalid_request"),
                err(await s.call_tool("list_unknowns", {"limit": 0}), "invalid_request"),
                err(
                    await s.call_tool("update_unknown", {"unknown_id": "unk_x", "expected_revision": 1}),
                    "invalid_request",
                ),
            ]
            state = ok(await s.call_tool("binary_session", {}))
            return out, state

    out, state = run(main)
    assert state["ledger"] == {"records": 0, "unknowns": 0}
    assert out[3]["details"]["path"] == "$.records[1]"


def test_progress_notifications_with_token_only(tmp_path):
    big = tmp_path / "big.bin"
    big.write_bytes(os.urandom(1 << 20) * 48)

    async def main():
        seen = []

        async def on_progress(progress, total, message):
            seen.append((progress, total, message))

        async with connect() as s:
            ok(await s.call_tool("open_binary", {"path": str(big)}, progress_callback=on_progress))
            with_token = list(seen)
            ok(await s.call_tool("open_binary", {"path": str(big)}))
            return with_token, seen

    with_token, all_seen = run(main)
    assert with_token == all_seen  # the second call had no token and produced nothing
    numbers = [p for p, _, _ in with_token]
    assert numbers == sorted(set(numbers)) and numbers[0] == 1
    assert all(total is None for _, total, _ in with_token)
    assert with_token[0][2].startswith("identifying target") and with_token[-1][2].startswith("finished")


def test_the_result_waits_until_the_client_has_acknowledged_the_last_progress_notification():
    """Ordered by construction: after the terminal notification the server pings, and the
    result leaves only once the client answered (a client that dispatches notifications
    asynchronously has handled the notification by then)."""
    import select

    from support import RawMcp

    with RawMcp(unbuffered=True) as raw:
        raw.send(
            {
                "jsonrpc": "2.0",
                "id": 7,
                "method": "tools/call",
                "params": {"name": "binary_session", "arguments": {}, "_meta": {"progressToken": "tok"}},
            }
        )
        before = []
        while not (before and before[-1].get("method") == "ping"):
            before.append(raw.receive())
            assert before[-1].get("id") != 7, "the result overtook the acknowledgement"
        assert select.select([raw.proc.stdout], [], [], 1.5)[0] == []  # nothing more until the client answers
        raw.send({"jsonrpc": "2.0", "id": before[-1]["id"], "result": {}})
        result = raw.receive()
    progress = [m["params"] for m in before if m.get("method") == "notifications/progress"]
    assert progress and progress[-1]["message"].startswith("finished") and progress[-1]["progressToken"] == "tok"
    assert result["id"] == 7 and result["result"]["isError"] is False


def test_cancel_during_large_export_leaves_no_staging_and_destination_untouched(tmp_path):
    bundle = write_bundle(tmp_path / "big-in.json", ledger(12_000, payload_bytes=2_000))
    dest = tmp_path / "dest.json"
    dest.write_bytes(b"previous export")

    async def main():
        async with connect() as s:
            ok(await s.call_tool("import_evidence_bundle", {"path": str(bundle)}))
            with anyio.CancelScope() as scope:

                async def on_progress(progress, total, message):
                    if message.startswith("exporting bundle"):
                        scope.cancel()

                await s.call_tool(
                    "export_evidence_bundle", {"path": str(dest), "overwrite": True}, progress_callback=on_progress
                )
            cancelled = scope.cancelled_caught
            for _ in range(100):  # the server finishes unwinding asynchronously
                if not [p for p in os.listdir(tmp_path) if p.endswith(".rea-staging")]:
                    break
                await anyio.sleep(0.05)
            state = ok(await s.call_tool("binary_session", {}))
            return cancelled, state

    cancelled, state = run(main)
    assert cancelled is True
    assert dest.read_bytes() == b"previous export"
    assert [p for p in os.listdir(tmp_path) if p.endswith(".rea-staging")] == []
    assert state["ledger"]["records"] == 12_000  # the session survived the cancelled call


def test_oversized_reply_is_a_resource_constraint_and_evidence_stays(tmp_path):
    bundle = write_bundle(tmp_path / "in.json", ledger(6_000, payload_bytes=2_000))

    async def main():
        async with connect() as s:
            ok(await s.call_tool("import_evidence_bundle", {"path": str(bundle)}))
            too_big = await s.call_tool("get_evidence_bundle", {})
            summary = ok(await s.call_tool("get_evidence_bundle", {"detail": "summary"}))
            return too_big, summary

    too_big, summary = run(main)
    body = err(too_big, "resource_constraint")
    assert body["details"]["resource"] == "transport" and body["details"]["reported_limits"]["reply_bytes"] > 10_485_760
    assert too_big.meta == MARK
    assert summary["matching_records"] == summary["total_retained_records"] == len(summary["records"]) == 6_000


def test_budget_setting_is_validated_at_startup():
    import subprocess

    for value in ("abc", "100", "1e7", "-10485760", " 10485760", "9007199254740992"):
        proc = subprocess.run(
            [*rea_command(), "mcp"],
            env=clean_env(REA_MCP_MAX_RESPONSE_BYTES=value),
            input=b"",
            capture_output=True,
            timeout=30,
        )
        assert proc.returncode == 2, value
        assert b"REA_MCP_MAX_RESPONSE_BYTES" in proc.stderr and b"10485760" in proc.stderr

    async def main():
        async with connect(REA_MCP_MAX_RESPONSE_BYTES="20971520") as s:
            return ok(await s.call_tool("binary_session", {}))

    assert run(main)["server_identity"]["response_budget"]["max_response_bytes"] == 20_971_520


def test_huge_arguments_get_a_bounded_error():
    async def main():
        async with connect() as s:
            huge_value = await s.call_tool(
                "record_unknown", {"question": "q" * 12_000_000, "domain": "d", "severity": "low"}
            )
            huge_name = await s.call_tool("list_unknowns", {"k" * 11_000_000: 1})
            return huge_value, huge_name

    huge_value, huge_name = run(main)
    for result in (huge_value, huge_name):
        err(result, "invalid_request")
        assert len(result.content[0].text) < 2_000
    assert "characters)" in err(huge_name, "invalid_request")["details"]["field"]


def test_alignment_against_the_registered_command():
    registered = rea_command()[0]

    async def main():
        async with connect() as s:
            same = ok(await s.call_tool("binary_session", {"expected_server_path": registered}))
            other = ok(await s.call_tool("binary_session", {"expected_server_path": "/usr/bin/true"}))
            return same, other

    same, other = run(main)
    if os.path.basename(registered) == "rea":  # the console script, not `python -m effects.cli`
        assert same["server_identity"]["alignment"]["state"] == "aligned"
    assert other["server_identity"]["alignment"]["reasons"] == ["registration_path_mismatch"]


def test_compact_input_schema_profile():
    import subprocess

    async def main():
        async with connect(REA_MCP_INPUT_SCHEMA_PROFILE="compact") as s:
            tools = [t.model_dump(by_alias=True, exclude_none=True) for t in (await s.list_tools()).tools]
            reply = ok(await s.call_tool("list_unknowns", {"limit": 5}))
            refused = await s.call_tool("list_unknowns", {"limit": 0})
            return tools, reply, refused

    tools, reply, refused = run(main)
    for tool in tools:
        schema = tool["inputSchema"]
        assert len(json.dumps(schema, separators=(",", ":"))) <= 13_312
        assert "examples" not in schema and '"$ref"' not in json.dumps(schema)  # inlined, as Kimi sends it
        reduced = all("properties" not in p for p in schema.get("properties", {}).values())  # first level only
        assert reduced or all("description" not in p for p in schema.get("properties", {}).values())
    assert reply["limit"] == 5
    err(refused, "invalid_request")  # canonical validation is unchanged
    proc = subprocess.run(
        [*rea_command(), "mcp"],
        env=clean_env(REA_MCP_INPUT_SCHEMA_PROFILE="tiny"),
        input=b"",
        capture_output=True,
        timeout=30,
    )
    assert proc.returncode == 2 and b"REA_MCP_INPUT_SCHEMA_PROFILE" in proc.stderr


def test_malformed_frames_do_not_stop_the_server():
    """Raw JSON-RPC over the pipe: garbage lines and malformed params, then normal service."""
    import subprocess

    proc = subprocess.Popen(
        [*rea_command(), "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=clean_env(),
    )

    def send(message) -> None:
        proc.stdin.write((message if isinstance(message, str) else json.dumps(message)) + "\n")
        proc.stdin.flush()

    try:
        send(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "1"},
                },
            }
        )
        assert json.loads(proc.stdout.readline())["id"] == 1
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        send("{not json")
        send("[]")
        send(
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "binary_session", "arguments": "oops"},
            }
        )
        replies = {}
        send({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "list_unknowns"}})
        while 3 not in replies:
            message = json.loads(proc.stdout.readline())
            if "id" in message:
                replies[message["id"]] = message
        assert "error" in replies[2]  # the SDK refuses non-object arguments itself
        assert replies[3]["result"]["structuredContent"]["result"]["total"] == 0
    finally:
        proc.kill()
        proc.wait()


def test_an_unknown_is_scoped_by_the_evidence_it_cites(tmp_path):
    """A question citing Evidence about another subject is scoped to that subject, not to the open target; with
    nothing cited, to the open target."""
    bundle = write_bundle(tmp_path / "in.json", ledger(3))
    cited = make_evidence(1)

    async def main():
        async with connect() as s:
            opened = ok(await s.call_tool("open_binary", {"path": "/usr/bin/true"}))
            ok(await s.call_tool("import_evidence_bundle", {"path": str(bundle)}))
            question = {"domain": "integrity", "severity": "low"}
            other = ok(
                await s.call_tool(
                    "record_unknown",
                    {**question, "question": "Is bin1 packed?", "supporting_evidence_ids": [cited.evidence_id]},
                )
            )
            here = ok(await s.call_tool("record_unknown", {**question, "question": "Is it packed?"}))
            return opened, other, here

    opened, other, here = run(main)
    assert other["scope_digest"] == cited.subject.sha256 != opened["sha256"]
    assert here["scope_digest"] == opened["sha256"]
