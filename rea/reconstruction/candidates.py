"""The obligations a reconstruction owes that Evidence itself names (REA 6.x candidate generation).

A bundle's application graphs (analyze_javascript_application with the semantic graph Evidence
it retains, reconcile_javascript_runtime, project_managed_application_graph) and its process
captures (capture_process_scenario) each name finite boundaries a rebuild must reproduce: an IPC
channel, a context-bridge API, a package, a child process, a captured process lifecycle. Each
becomes one generated obligation whose id is a digest of what it is about (the same node or
scenario gives the same id in any bundle), citing the Evidence it came from. A source that cannot
be read, an unresolved node or incomplete coverage is a limitation: what it would have named
stays unknown, never absent. Nothing here says an obligation is met; the ledger judges that
against the manifest.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

from rea.canonical_json import canonical_sha256
from rea.evidence import Evidence

APPLICATION_OPERATIONS = ("analyze_javascript_application", "reconcile_javascript_runtime",
                          "project_managed_application_graph")  # fmt: skip
PROCESS_OPERATION = "capture_process_scenario"
SEMANTIC_OPERATION = "javascript_semantic_graph"
RUNTIME_AUTHORITIES = ("passive-cdp-runtime", "controlled-replay")
_NODE = {"application_node_id": re.compile(r"^jag_node_[a-f0-9]{64}$"),
         "semantic_node_id": re.compile(r"^jsrg_node_[a-f0-9]{64}$")}  # fmt: skip
_SHA256 = re.compile(r"^[a-f0-9]{64}$")
STATE_ORDER = ("observed", "candidate", "reviewed")


@attrs.frozen(kw_only=True)
class Policy:
    """What one kind of boundary requires: the reference's candidate policy for a node kind."""

    layer: str
    family: str
    authority: str  # of the reconstruction's fixtures and verifier
    original: str = "runtime"  # the observation of the original it needs
    cases: tuple[str, ...] = ("positive", "negative", "malformed")
    parser: bool = False


def _native(family: str) -> Policy:
    return Policy(layer="native-abi", family=family, authority="native-abi", original="static",
                  cases=("positive", "negative"))  # fmt: skip


_LIFE, _WORKER = ("positive", "negative", "teardown"), ("positive", "cancellation", "teardown")
APPLICATION: Mapping[str, Policy] = {
    "package": Policy(layer="packaging", family="package-lifecycle", authority="packaged-process", cases=_LIFE),
    "installer": Policy(layer="packaging", family="installer", authority="packaged-process", cases=_LIFE),
    "context-bridge-api": Policy(layer="electron", family="context-bridge", authority="renderer"),
    "ipc-channel": Policy(layer="electron", family="ipc", authority="renderer"),
    "ipc-handler": Policy(layer="electron", family="ipc", authority="renderer"),
    "endpoint": Policy(layer="protocol", family="endpoint", authority="protocol"),
    "storage": Policy(layer="persistence", family="persistence", authority="integration"),
    "worker": Policy(layer="process", family="worker-lifecycle", authority="packaged-process", cases=_WORKER),
    "service-worker": Policy(layer="process", family="worker-lifecycle", authority="packaged-process", cases=_WORKER),
    "native-addon": _native("native-addon"),
    "native-export": _native("native-export"),
    "managed-pinvoke-import": _native("managed-pinvoke"),
    "managed-native-implementation": _native("managed-native"),
}
SEMANTIC: Mapping[str, Policy] = {
    "child-process": Policy(layer="process", family="child-process", authority="packaged-process",
                            cases=("positive", "negative", "cancellation", "teardown")),
    "stdio": Policy(layer="process", family="stdio", authority="packaged-process", cases=_LIFE),
    "signal": Policy(layer="process", family="signal", authority="packaged-process", cases=_WORKER),
    "config-source": Policy(layer="cli", family="configuration", authority="integration", parser=True),
    "request": Policy(layer="protocol", family="request", authority="protocol", parser=True),
    "response": Policy(layer="protocol", family="response", authority="protocol", parser=True),
    "boundary": Policy(layer="application", family="parser-boundary", authority="integration", parser=True),
    "resource": Policy(layer="persistence", family="resource-lifecycle", authority="integration", cases=_LIFE),
    "event": Policy(layer="runtime", family="event", authority="packaged-process",
                    cases=("positive", "negative", "cancellation")),
    "timer": Policy(layer="runtime", family="timer", authority="packaged-process", cases=_WORKER),
    "promise": Policy(layer="runtime", family="promise-ownership", authority="packaged-process",
                      cases=("positive", "negative", "cancellation")),
    "task": Policy(layer="runtime", family="task-lifecycle", authority="packaged-process", cases=_WORKER),
}  # fmt: skip
PROCESS_CASES = ("positive", "negative", "cancellation", "teardown")


@attrs.frozen(kw_only=True)
class Candidate:
    """One obligation before the manifest judges it: its wire fields (an Obligation without binding,
    status and diagnostics), how many definitions share its id, and the reviewer's disposition."""

    fields: Mapping[str, Any]
    definitions: int = 1
    disposition: str = "active"

    @property
    def obligation_id(self) -> str:
        return str(self.fields["obligation_id"])


@attrs.frozen(kw_only=True)
class Generated:
    candidates: Mapping[str, Candidate]
    limitations: tuple[str, ...]


class Unreadable(Exception):
    """A source record whose shape is not the one its operation produces."""


def obligation_id(key: str) -> str:
    """A generated obligation's id: a digest of what it is about, so the same boundary has one id everywhere."""
    return "obl_" + canonical_sha256({"schema": "ReconstructionObligation", "key": key})


def source_state(references: Sequence[Mapping[str, Any]]) -> str:
    """The strongest state any reference has: observed, then candidate, then reviewed, else unknown."""
    states = {r["state"] for r in references}
    return next((s for s in STATE_ORDER if s in states), "unknown")


def unique(items: Iterable[Mapping[str, Any]], *keys: str) -> list[Mapping[str, Any]]:
    by_key = {":".join(str(i[k]) for k in keys): i for i in items}
    return [by_key[k] for k in sorted(by_key)]


def merge(candidates: dict[str, Candidate], new: Candidate) -> None:
    """Two definitions of one id become one candidate counted twice (the ledger marks it duplicate-definition);
    their references and observed cases are joined, and authority stays unavailable only where neither definition
    gave it (two captures of one scenario: a dimension one of them observed is observed)."""
    old = candidates.get(new.obligation_id)
    if old is None:
        candidates[new.obligation_id] = new
        return
    refs = unique([*old.fields["authority_references"], *new.fields["authority_references"]],
                   "evidence_id", "state", "location")  # fmt: skip
    cases = unique([*old.fields["observed_cases"], *new.fields["observed_cases"]], "kind", "evidence_id", "location")
    unavailable = [a for a in old.fields["unavailable_authority"] if a in new.fields["unavailable_authority"]]
    fields = {**old.fields, "authority_references": refs, "observed_cases": cases, "source_state": source_state(refs),
              "unavailable_authority": unavailable}  # fmt: skip
    candidates[new.obligation_id] = attrs.evolve(old, fields=fields, definitions=old.definitions + new.definitions)


def _generated(key: str, title: str, policy: Policy, target: Mapping[str, Any],
               references: Sequence[Mapping[str, Any]]) -> Candidate:  # fmt: skip
    refs = unique(references, "evidence_id", "state", "location")
    return Candidate(fields={
        "obligation_id": obligation_id(key), "obligation_version": 1, "title": title[:500] or key,
        "origin": "generated", "application_layer": policy.layer, "family": policy.family, "target": dict(target),
        "authority_references": refs, "source_state": source_state(refs), "observed_cases": [], "required": True,
        "required_case_kinds": list(policy.cases), "required_original_authority": policy.original,
        "required_fixture_authority": policy.authority, "required_verifier_authority": policy.authority,
        "requires_parser_type": policy.parser, "dependency_obligation_ids": [], "residual_unknown_ids": [],
        "unavailable_authority": [],
        "required_next_evidence": [f"Obtain {policy.original} authority for this finite {policy.family} claim."],
    })  # fmt: skip


def _target(artifact: Any, location: str, **nodes: Any) -> dict[str, Any]:
    """A target whose ids are kept only in the shape the ledger's schema gives them (else null)."""
    out: dict[str, Any] = {
        "artifact_sha256": artifact if isinstance(artifact, str) and _SHA256.match(artifact) else None
    }
    for name, pattern in _NODE.items():
        value = nodes.get(name)
        out[name] = value if isinstance(value, str) and pattern.match(value) else None
    return {**out, "location": location}


def _reference(envelope: Evidence, records: Mapping[str, Evidence], facts: Any, location: str) -> dict[str, Any]:
    """One node observation as an authority reference: the first Evidence it links that the bundle holds (else
    the record holding the graph); observed only for a runtime observation, unknown when the graph says so,
    otherwise a static candidate."""
    facts = facts if isinstance(facts, Mapping) else {}
    ids = facts.get("evidence_ids")
    linked = (
        next((records[i] for i in ids if isinstance(i, str) and i in records), envelope)
        if isinstance(ids, list)
        else envelope
    )
    state = facts.get("state")
    if facts.get("authority") in RUNTIME_AUTHORITIES and state == "observed":
        kind = "observed"
    else:
        kind = "unknown" if state in ("unknown", "unavailable") else "candidate"
    return {"evidence_id": linked.evidence_id, "authority": linked.authority, "state": kind, "location": location}


def _mapping(value: Any, what: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise Unreadable(f"{what} is not an object")
    return value


def _list(value: Any, what: str) -> list[Mapping[str, Any]]:
    if not isinstance(value, list) or not all(isinstance(v, Mapping) for v in value):
        raise Unreadable(f"{what} is not a list of objects")
    return value


def _root_sha256(evidence: Evidence, result: Mapping[str, Any]) -> Any:
    if evidence.operation == "reconcile_javascript_runtime":
        layers = _list(result.get("static_layers"), "static_layers")
        return next((layer.get("root_artifact_sha256") for layer in layers if layer.get("role") == "application"), None)
    return result.get("root_artifact_sha256")


def _application(evidence: Evidence, records: Mapping[str, Evidence], out: dict[str, Candidate],
                 notes: set[str]) -> None:  # fmt: skip
    result = _mapping(evidence.normalized_result, "normalized_result")
    graph = _mapping(result.get("graph"), "graph")
    graph_id, root = graph.get("graph_id"), _root_sha256(evidence, result)
    for node in _list(graph.get("nodes"), "graph.nodes"):
        kind, node_id = node.get("kind"), node.get("node_id")
        policy = APPLICATION.get(str(kind))
        if policy is None:
            if kind == "unknown":
                notes.add(f"Application graph {graph_id} contains unresolved node {node_id}; reconstruction "
                          "obligations remain unknown.")  # fmt: skip
            continue
        observations = _list(node.get("observations"), f"node {node_id} observations")
        refs = [_reference(evidence, records, o.get("evidence"),
                           f"{graph_id}/node/{node_id}/observation/{o.get('observation_id')}") for o in observations]  # fmt: skip
        if not refs:  # an obligation always names its source: the record holding the node
            refs = [_reference(evidence, records, None, f"{graph_id}/node/{node_id}")]
        title = str((observations[0].get("label") if observations else None) or f"{kind} boundary")
        target = _target(root, f"application-graph:{graph_id}/nodes/{node_id}", application_node_id=node_id)
        merge(out, _generated(f"application:{node_id}:{policy.family}", title, policy, target, refs))
    coverage = graph.get("coverage")
    status = coverage.get("status") if isinstance(coverage, Mapping) else None
    if status != "complete":
        notes.add(f"Application graph {graph_id} coverage is {status}; omitted candidates remain unknown.")
    if evidence.operation == "analyze_javascript_application":
        _semantic_of(evidence, result, records, out, notes)


def _semantic_of(evidence: Evidence, result: Mapping[str, Any], records: Mapping[str, Evidence],
                 out: dict[str, Candidate], notes: set[str]) -> None:  # fmt: skip
    """The semantic graph an analysis retained as its own Evidence (named by id); absent from the bundle, the
    candidates it would name stay unknown."""
    held = result.get("semantic_graph")
    retained = held.get("retained") if isinstance(held, Mapping) else None
    if not isinstance(retained, Mapping):
        return
    graph = records.get(str(retained.get("evidence_id")))
    if graph is None or graph.operation != SEMANTIC_OPERATION:
        notes.add(f"The semantic graph Evidence {retained.get('evidence_id')} of application Evidence "
                  f"{evidence.evidence_id} is not in the bundle; its candidates remain unknown.")  # fmt: skip
        return
    try:
        _semantic(graph, records, out)
    except Unreadable as why:
        notes.add(f"Semantic graph Evidence {graph.evidence_id} could not generate candidates: {why}")


def _semantic(evidence: Evidence, records: Mapping[str, Evidence], out: dict[str, Candidate]) -> None:
    graph = _mapping(evidence.normalized_result, "normalized_result")
    graph_id = graph.get("graph_id")
    contexts = {str(c.get("context_id")): c for c in _list(graph.get("evidence_contexts") or [], "evidence_contexts")}
    for node in _list(graph.get("nodes"), "nodes"):
        policy = SEMANTIC.get(str(node.get("kind")))
        if policy is None:
            continue
        node_id, identity = node.get("node_id"), node.get("identity")
        facts = node.get("evidence")
        context = contexts.get(str(facts.get("context_id"))) if isinstance(facts, Mapping) else None
        ref = _reference(evidence, records, context, f"{graph_id}/node/{node_id}")
        apps = node.get("application_node_ids")
        apps = apps if isinstance(apps, list) and apps else [None]
        artifact = identity.get("artifact_sha256") if isinstance(identity, Mapping) else None
        target = _target(artifact, f"semantic-graph:{graph_id}/nodes/{node_id}", application_node_id=apps[0],
                         semantic_node_id=node_id)  # fmt: skip
        title = str(node.get("label") or f"{node.get('kind')} semantic boundary")
        merge(out, _generated(f"semantic:{node_id}:{policy.family}", title, policy, target, [ref]))


def _process(evidence: Evidence, out: dict[str, Candidate], notes: set[str]) -> None:
    """One captured scenario: the packaged-process lifecycle the rebuild must reproduce. Its exit is a positive
    (code 0) or negative case, its settlement a teardown case, a signal or a non-exit end a cancellation case;
    the dimensions the capture left open are authority it could not give."""
    capture = _mapping(evidence.normalized_result, "normalized_result")
    end, manifest = _mapping(capture.get("exit"), "exit"), _mapping(capture.get("manifest"), "manifest")
    cases = [("positive" if end.get("code") == 0 else "negative", "/normalized_result/exit"),
             ("teardown", "/normalized_result/settlement")]  # fmt: skip
    if end.get("signal") is not None or end.get("reason") != "exited":
        cases.append(("cancellation", "/normalized_result/exit"))
    residual = _list(capture.get("residual_unknowns"), "residual_unknowns")
    truncated = capture.get("truncated") is True
    sha, scenario = manifest.get("executable_sha256"), manifest.get("full_scenario_sha256")
    policy = Policy(layer="process", family="packaged-process-lifecycle", authority="packaged-process",
                    original="process", cases=PROCESS_CASES)  # fmt: skip
    ref = {"evidence_id": evidence.evidence_id, "authority": evidence.authority, "state": "observed",
           "location": "/normalized_result"}  # fmt: skip
    made = _generated(f"process:{sha}:{scenario}", "Captured packaged-process lifecycle", policy,
                      _target(sha, f"/evidence/{evidence.evidence_id}/normalized_result"), [ref])  # fmt: skip
    fields = {**made.fields,
              "observed_cases": [{"kind": k, "evidence_id": evidence.evidence_id, "location": at} for k, at in cases],
              "unavailable_authority": [f"{u.get('scope')}: {u.get('reason')}" for u in residual],
              "required_next_evidence": ["Repeat the packaged-process capture without truncation."] if truncated else []}  # fmt: skip
    merge(out, attrs.evolve(made, fields=fields))
    if truncated:
        notes.add(f"Process Evidence {evidence.evidence_id} is truncated; absence and upper bounds remain unknown.")


def generate(records: Mapping[str, Evidence]) -> Generated:
    """Every candidate the bundle's application graphs and process captures name, in id order, with the
    limitations of what could not be read."""
    out: dict[str, Candidate] = {}
    notes: set[str] = set()
    for evidence in sorted(records.values(), key=lambda e: e.evidence_id):
        try:
            if evidence.operation in APPLICATION_OPERATIONS:
                _application(evidence, records, out, notes)
            elif evidence.operation == PROCESS_OPERATION:
                _process(evidence, out, notes)
        except Unreadable as why:
            kind = "Process" if evidence.operation == PROCESS_OPERATION else "Application"
            notes.add(f"{kind} Evidence {evidence.evidence_id} could not generate candidates: {why}")
    return Generated(candidates={k: out[k] for k in sorted(out)}, limitations=tuple(sorted(notes)))
