"""Laws of the URL credential rules (rea.web_network.url_redaction) over generated URLs and texts.

Laws: redaction is idempotent (a redacted text redacts to itself with no hit); a
credential value put where a rule looks (a credential parameter, a key-shaped value
in any parameter, a userinfo password, a key in free text) never survives, and
each yields a hit naming its rule and parameter; a URL whose parameters are all
ordinary comes back byte for byte; no text makes the rules raise. Secrets are
drawn with an upper-case letter and the rest of each URL from lower case, so a
secret cannot reappear by coincidence.
"""

from __future__ import annotations

import json
from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

from rea.web_network.capture import har_records
from rea.web_network.model import NumberText
from rea.web_network.url_redaction import PARAMETER_NAMES, PLACEHOLDER, credential_name, redact_text
from rea.web_network.views import capture_summary
from rea.wire.convert import to_wire

LOWER = "abcdefghijklmnopqrstuvwxyz0123456789"
PLAIN = st.text(LOWER, min_size=1, max_size=12)
HOSTS = st.builds(lambda a, b: f"{a}.{b}", PLAIN, st.sampled_from(["com", "net", "example"]))
PATHS = st.lists(PLAIN, max_size=4).map(lambda parts: "/" + "/".join(parts))
# ordinary parameters: lower-case names that no rule names, lower-case values no shape matches
ORDINARY = st.tuples(PLAIN.filter(lambda n: not credential_name(n)), st.text(LOWER, max_size=12))
SECRET = st.builds(lambda a, b: f"S{a}X{b}", st.text(LOWER, min_size=4, max_size=20), st.text(LOWER, max_size=8))
ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
SHAPED = st.one_of(
    st.text(ALNUM + "_-", min_size=35, max_size=35).map(lambda s: "AIza" + s),
    st.text("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", min_size=16, max_size=16).map(lambda s: "AKIA" + s),
    st.text(ALNUM, min_size=36, max_size=40).map(lambda s: "ghp_" + s),
    st.text(ALNUM + "-", min_size=10, max_size=30).map(lambda s: "xoxb-" + s),
    st.tuples(*[st.text(ALNUM + "_-", min_size=4, max_size=30)] * 3).map(lambda p: f"eyJ{p[0]}.eyJ{p[1]}.{p[2]}"),
)


def _url(host: str, path: str, params: list[tuple[str, str]], fragment: str = "") -> str:
    query = "&".join(f"{n}={v}" for n, v in params)
    return f"https://{host}{path}" + (f"?{query}" if params else "") + (f"#{fragment}" if fragment else "")


@given(HOSTS, PATHS, st.lists(ORDINARY, max_size=5))
def test_ordinary_urls_are_unchanged(host, path, params):
    url = _url(host, path, params)
    assert redact_text(url) == (url, ())


@given(
    HOSTS,
    PATHS,
    st.lists(ORDINARY, max_size=3),
    st.sampled_from(sorted(PARAMETER_NAMES) + ["csrf_token", "Client_Secret", "API%5FKEY"]),
    SECRET,
    st.integers(0, 3),
)
def test_credential_parameters_never_survive(host, path, params, name, secret, at):
    params = list(params)
    params.insert(min(at, len(params)), (name, secret))
    url = _url(host, path, params)
    out, hits = redact_text(url)
    assert secret not in out and f"{name}={PLACEHOLDER}" in out
    assert [(h.rule, h.component) for h in hits] == [("credential-parameter", "query")]
    assert redact_text(out) == (out, ())
    # ordinary parameters keep their text
    assert all(f"{n}={v}" in out for n, v in params if (n, v) != (name, secret))


@given(HOSTS, PATHS, PLAIN.filter(lambda n: not credential_name(n)), SHAPED, st.booleans())
def test_key_shaped_values_never_survive(host, path, name, key, in_fragment):
    url = _url(host, path, [] if in_fragment else [(name, key)], f"{name}={key}" if in_fragment else "")
    out, hits = redact_text(url)
    assert key not in out and len(hits) == 1
    assert hits[0].component == ("fragment" if in_fragment else "query") and hits[0].parameter == name
    assert redact_text(out) == (out, ())


@given(HOSTS, PATHS, PLAIN, SECRET)
def test_userinfo_passwords_never_survive(host, path, user, secret):
    out, hits = redact_text(f"https://{user}:{secret}@{host}{path}")
    assert secret not in out and out == f"https://{user}:{PLACEHOLDER}@{host}{path}"
    assert [h.rule for h in hits] == ["userinfo-password"]
    assert redact_text(out) == (out, ())


@given(st.text(LOWER + " :;,", max_size=20), SHAPED, st.text(LOWER + " :;,", max_size=20))
def test_keys_in_free_text_never_survive(before, key, after):
    text = f"{before} {key} {after}"
    out, hits = redact_text(text)
    assert key not in out and [h.component for h in hits] == ["text"]
    assert redact_text(out) == (out, ())


@given(st.lists(ORDINARY, min_size=1, max_size=4), SECRET)
def test_request_paths_are_read_like_urls(params, secret):
    path = "/api?" + "&".join(f"{n}={v}" for n, v in params) + f"&token={secret}"
    out, _ = redact_text(path)
    assert secret not in out and out == path.replace(f"token={secret}", f"token={PLACEHOLDER}")


@settings(max_examples=300)
@given(st.text(max_size=200))
def test_any_text_redacts_idempotently(text):
    out, hits = redact_text(text)
    assert isinstance(out, str)
    assert redact_text(out) == (out, ())
    if not hits:
        assert out == text


# ------------------------------------------------------------------ the summary's bound

NAMES = st.text(LOWER, min_size=1, max_size=300).map(lambda n: n + "_token")
LONG = st.text(LOWER + "/", min_size=0, max_size=3000)


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.tuples(st.text(LOWER, min_size=1, max_size=500), LONG, st.lists(NAMES, max_size=30), LONG),
        min_size=1,
        max_size=40,
    )
)
def test_a_capture_summary_stays_under_32_kb(entries):
    """Hostile methods, hosts, paths, many distinct credential parameters and deep keys: the summary stays bounded."""
    har = {
        "log": {
            "version": "1.2",
            "entries": [
                {
                    "request": {
                        "method": method,
                        "url": f"https://{host or 'h'}.test/{path}?"
                        + "&".join(f"{n}=v{i}" for i, n in enumerate(names)),
                        "headers": [],
                        "deep" + path[:200]: {"x" * 200: f"https://h.test/?{names[0] if names else 'token'}=s"},
                    },
                    "response": {"status": NumberText("200"), "headers": []},
                }
                for method, host, names, path in entries
            ],
        }
    }
    container, records = har_records(har, ())
    container, records = to_wire(container), [to_wire(r) for r in records]
    result = {
        "format": "har",
        "decoder": {"id": "python-json", "name": "CPython json", "version": "3.11"},
        "artifact": {"path": "/c.har", "sha256": "0" * 64, "bytes": 1},
        "container": container,
        "total_records": len(records),
        "records": records,
    }
    source = SimpleNamespace(normalized_result=result, evidence_id="ev_" + "a" * 64)
    summary = capture_summary(source)  # type: ignore[arg-type]
    assert len(json.dumps(summary).encode()) < 24 << 10
