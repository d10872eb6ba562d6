"""Laws of the V8 inspector observation fold: hostile events from a runtime never crash it, and the
answer always fits the advertised result schema."""

from __future__ import annotations

import jsonschema
from hypothesis import given, settings
from hypothesis import strategies as st

from prop_support import json_value
from rea.javascript.devtools_answers import discovery_of, window_of
from rea.javascript.records.runtime import ObserveRuntimeArgs, RuntimeObservation, RuntimeTargetList
from rea.javascript.runtime_observation import LISTEN, location_of, observation, target_list
from rea.wire.convert import to_wire
from rea.wire.schema import Role, schema_of

OBSERVATION = schema_of(RuntimeObservation, Role.OUTPUT)
LISTING = schema_of(RuntimeTargetList, Role.OUTPUT)
urls = st.text(max_size=40) | st.sampled_from(
    ["file:///a%20b.js", "file://host/x", "node:fs", "http://u:p@127.0.0.1:80/x?q#f", "http://[::1", "evalmachine"]
)
params = st.fixed_dictionaries(
    {},
    optional={
        "scriptId": st.text(max_size=4) | st.integers(),
        "url": urls | st.integers(),
        "hash": json_value,
        "length": st.integers(-5, 10**9) | st.booleans(),
        "isModule": json_value,
        "executionContextId": json_value,
        "context": json_value | st.fixed_dictionaries({}, optional={"id": json_value, "name": json_value}),
        "args": json_value | st.lists(st.dictionaries(st.sampled_from(["value", "type", "description"]), json_value)),
        "exceptionDetails": json_value,
        "timestamp": json_value,
        "type": json_value,
        "stackTrace": json_value,
    },
)
events = st.lists(st.tuples(st.integers(0, 10**6), st.sampled_from(LISTEN), params | json_value), max_size=25)


@settings(max_examples=200, deadline=None)
@given(events, st.booleans(), json_value, urls)
def test_observation_of_hostile_events_fits_the_schema(raw_events, exited, version, url):
    raw = {
        "version": version if isinstance(version, dict) else {},
        "target": {"id": "t", "type": "node", "url": url, "title": "x"},
        "events": [list(e) for e in raw_events],
        "observed": len(raw_events),
        "dropped": {},
        "results": {},
        "errors": [],
        "exited": exited,
        "elapsed_ms": 10,
    }
    args = ObserveRuntimeArgs(inspector_endpoint="http://127.0.0.1:9229", target_id="t", max_scripts=5)
    jsonschema.validate(to_wire(observation(window_of(raw), args)), OBSERVATION)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.fixed_dictionaries(
            {"id": st.text(min_size=1, max_size=5)},
            optional={"url": urls, "type": json_value, "webSocketDebuggerUrl": json_value, "title": json_value},
        ),
        max_size=8,
    )
)
def test_target_list_fits_the_schema(targets):
    jsonschema.validate(to_wire(target_list(discovery_of({"version": {}, "targets": targets}), 0, 100)), LISTING)


@given(urls)
def test_location_is_total(url):
    found = location_of(url)
    assert found is None or found.kind in ("file", "url", "builtin")
