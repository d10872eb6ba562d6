"""Credentials inside URLs: which query parameters, userinfo and value shapes are withheld, as tables.

A capture's URLs carry credentials as often as its headers do: a Maps key in
`?key=`, a signed S3 link's `X-Amz-Signature`, an OAuth `access_token` in a
fragment, `user:password@` in the authority, a JWT in any parameter. Headers are
withheld by name (capture.CREDENTIAL_HEADERS); a URL is rewritten in place so the
request line stays readable: only the credential's value becomes PLACEHOLDER, and
each rewrite is a Hit naming its rule, the URL component and the parameter name,
never the value.

Rules, first match wins per value:
- a query or fragment parameter whose name (percent-decoded, lowercased) is in
  PARAMETER_NAMES or ends with one of PARAMETER_SUFFIXES;
- a parameter value, or any other stretch of the text, shaped like a known key
  (VALUE_SHAPES: Google, AWS, GitHub, Slack, Stripe keys, JWTs);
- the password of `user:password@` userinfo (a user name alone is not a secret,
  unless it is shaped like a key).

`redact_text` is idempotent (PLACEHOLDER matches no rule and a parameter already
holding it is left alone) and leaves a text without credentials byte for byte as
it was. Pure string rules: no urllib (rea/ does no IO and imports none of it).
"""

from __future__ import annotations

import re
from typing import Final, Literal

import attrs

PLACEHOLDER = "REDACTED"
REASON: Final = "transport-credential"  # the reference's reason: a URL credential authenticates the request

# parameter names that carry a credential (compared percent-decoded and lowercased)
PARAMETER_NAMES = frozenset(
    {
        "key",
        "api_key",
        "apikey",
        "api-key",
        "token",
        "access_token",
        "refresh_token",
        "id_token",
        "auth",
        "sig",
        "signature",
        "password",
        "passwd",
        "secret",
        "client_secret",
        "x-amz-signature",
        "x-amz-security-token",
        "x-amz-credential",
        "x-goog-signature",
        "x-goog-credential",
    }
)
PARAMETER_SUFFIXES = ("_token", "-token", "_secret", "-secret", "_password", "_apikey", "_api_key")

_EDGE = r"(?<![A-Za-z0-9_-])"  # a shape starts and ends at a token boundary, never inside a longer word
_END = r"(?![A-Za-z0-9_-])"
# (rule, pattern): values shaped like a known credential
VALUE_SHAPES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("google-api-key", re.compile(_EDGE + r"AIza[0-9A-Za-z_-]{35}" + _END)),
    ("aws-access-key-id", re.compile(r"(?<![A-Za-z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![A-Za-z0-9])")),
    ("github-token", re.compile(_EDGE + r"(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})" + _END)),
    ("slack-token", re.compile(_EDGE + r"xox[baprs]-[A-Za-z0-9-]{10,250}" + _END)),
    ("stripe-secret-key", re.compile(_EDGE + r"(?:sk|rk)_live_[0-9A-Za-z]{16,247}" + _END)),
    ("jwt", re.compile(_EDGE + r"eyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*" + r"(?![A-Za-z0-9_.-])")),
)
_ANY_SHAPE = re.compile("|".join(f"(?:{p.pattern})" for _, p in VALUE_SHAPES))
# every shape starts with one of these: a text holding none of them (and no ?, # or @) is skipped at once
_MARKS = ("?", "#", "@", "AIza", "AKIA", "ASIA", "gh", "xox", "_live_", "eyJ")
# absolute URLs inside a text (a header value, an initiator, a page title); a text starting with "/" is a path
URL_IN_TEXT = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s\"'<>]+")
_AUTHORITY = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*://)([^/?#]*)(.*)", re.DOTALL)
_PERCENT = re.compile(r"(?:%[0-9A-Fa-f]{2})+")


Component = Literal["query", "fragment", "userinfo", "text"]


@attrs.frozen(kw_only=True)
class Hit:
    """One withheld credential: the rule that matched, where in the URL, and the parameter's name (never the value)."""

    rule: str
    component: Component
    parameter: str | None = None


def percent_decoded(text: str) -> str:
    """RFC 3986 percent-decoding (and `+` as space, as forms write it); bad UTF-8 is replaced, never raised."""
    spaced = text.replace("+", " ")
    return _PERCENT.sub(lambda m: bytes.fromhex(m.group(0).replace("%", "")).decode("utf-8", "replace"), spaced)


def credential_name(name: str) -> bool:
    """A parameter name that carries a credential, decoded and lowercased."""
    folded = percent_decoded(name).strip().lower()
    return folded in PARAMETER_NAMES or folded.endswith(PARAMETER_SUFFIXES)


def value_shape(value: str) -> str | None:
    """The rule of the first key shape found in a (percent-decoded) value, or None."""
    decoded = percent_decoded(value)
    for rule, pattern in VALUE_SHAPES:
        if pattern.search(decoded):
            return rule
    return None


def _parameters(text: str, component: Literal["query", "fragment"], hits: list[Hit]) -> str:
    """`a=1&key=v`: each credential parameter's value replaced, everything else as it was."""
    out = []
    for pair in text.split("&"):
        name, equals, value = pair.partition("=")
        if not equals or not value or value == PLACEHOLDER:
            out.append(pair)
            continue
        shown = percent_decoded(name)[:128]
        rule = "credential-parameter" if credential_name(name) else value_shape(value)
        if rule is None:
            out.append(pair)
            continue
        hits.append(Hit(rule=rule, component=component, parameter=shown))
        out.append(f"{name}={PLACEHOLDER}")
    return "&".join(out)


def _userinfo(authority: str, hits: list[Hit]) -> str:
    userinfo, at, host = authority.rpartition("@")
    if not at:
        return authority
    user, colon, password = userinfo.partition(":")
    if colon and password and password != PLACEHOLDER:
        hits.append(Hit(rule="userinfo-password", component="userinfo"))
        password = PLACEHOLDER
    rule = value_shape(user) if user != PLACEHOLDER else None
    if rule is not None:
        hits.append(Hit(rule=rule, component="userinfo"))
        user = PLACEHOLDER
    return f"{user}{colon}{password}@{host}"


def redact_url(url: str, hits: list[Hit]) -> str:
    """One absolute URL or path reference with its query, fragment and userinfo credentials replaced."""
    head, authority, rest = "", "", url
    parts = _AUTHORITY.fullmatch(url)
    if parts is not None:
        head, authority, rest = parts.group(1), _userinfo(parts.group(2), hits), parts.group(3)
    rest, hashed, fragment = rest.partition("#")
    path, asked, query = rest.partition("?")
    if asked:
        query = _parameters(query, "query", hits)
    if hashed:
        fragment = _parameters(fragment, "fragment", hits)
    return f"{head}{authority}{path}{asked}{query}{hashed}{fragment}"


def _shapes(text: str, hits: list[Hit]) -> str:
    """Any key-shaped stretch left in the text (a path segment, a header value) replaced."""

    def replace(match: re.Match[str]) -> str:
        rule = next(rule for rule, pattern in VALUE_SHAPES if pattern.fullmatch(match.group(0)))
        hits.append(Hit(rule=rule, component="text"))
        return PLACEHOLDER

    return _ANY_SHAPE.sub(replace, text)


def _maybe(text: str) -> bool:
    """Cheap pre-check: most strings of a capture hold no URL parameters, userinfo or key prefix."""
    return any(mark in text for mark in _MARKS)


def redact_text(text: str) -> tuple[str, tuple[Hit, ...]]:
    """The text with every URL credential and key-shaped value replaced by PLACEHOLDER, and what was replaced."""
    if not _maybe(text):
        return text, ()
    hits: list[Hit] = []
    if text.startswith("/"):  # a request path (mitmproxy's path, HTTP/2 :path): the whole text is one reference
        rewritten = redact_url(text, hits)
    else:
        rewritten = URL_IN_TEXT.sub(lambda m: redact_url(m.group(0), hits), text)
    rewritten = _shapes(rewritten, hits)
    return rewritten, tuple(hits)
