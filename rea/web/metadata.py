"""Safe page metadata: allowlisted response headers (CSP, Link, isolation policies), DOM URLs, agent hints.

Only the headers named in HEADERS are read; CSP sources are classified rather than echoed
when they name an origin outside the policy. Link relations that declare agent or MCP
endpoints become hints marked page-declared-untrusted.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from rea.loopback import origin_of, urljoin
from rea.web.records.browser import Scope
from rea.web.records.page import (
    AgentHint,
    Csp,
    CspDirective,
    CspSource,
    DomUrl,
    LinkMetadata,
    Policies,
    ResponseMetadata,
    SafeMetadata,
    UrlAttribute,
)
from rea.web.scope import clean_url, in_scope

HEADERS = (
    "content-length",
    "content-encoding",
    "content-security-policy",
    "link",
    "cross-origin-opener-policy",
    "cross-origin-embedder-policy",
    "cross-origin-resource-policy",
    "referrer-policy",
    "x-content-type-options",
    "permissions-policy",
)
URL_ATTRIBUTES: tuple[UrlAttribute, ...] = ("href", "src", "action", "formaction", "poster")
AGENT_RELS = frozenset({"mcp", "webmcp", "agent", "ai-plugin", "llms", "llms-txt", "model-context"})
MAX_DOM_URLS = 5000


def _headers(raw: Mapping[str, Any]) -> dict[str, str]:
    return {str(k).lower(): str(v) for k, v in raw.items() if str(k).lower() in HEADERS}


def _scope(url: str | None, origins: Sequence[str]) -> Scope:
    if url is None or not url.startswith(("http://", "https://")):
        return "unsupported"
    return "approved" if in_scope(url, origins) else "outside_policy"


def _csp_source(token: str, origins: Sequence[str]) -> CspSource:
    if token.startswith("'") and token.endswith("'"):
        return CspSource(kind="keyword", value=token)
    if re.fullmatch(r"[a-z][a-z0-9+.-]*:", token):
        return CspSource(kind="scheme", value=token)
    candidate = token if "://" in token else f"https://{token}"
    origin = origin_of(candidate)
    if origin is not None and origin in set(origins):
        return CspSource(kind="approved_origin", value=origin)
    if origin is not None:
        return CspSource(kind="external_origin", value=None)
    return CspSource(kind="other", value=None)


def csp(text: str | None, origins: Sequence[str]) -> Csp:
    directives: list[CspDirective] = []
    nonces, hashes = 0, 0
    for part in (text or "").split(";"):
        tokens = part.split()
        if not tokens:
            continue
        sources = []
        for token in tokens[1:]:
            if token.startswith("'nonce-"):
                nonces += 1
            elif re.match(r"'sha(256|384|512)-", token):
                hashes += 1
            else:
                sources.append(_csp_source(token, origins))
        directives.append(CspDirective(name=tokens[0].lower(), sources=tuple(sources)))
    return Csp(directives=tuple(directives), nonce_count=nonces, hash_count=hashes)


def _link_params(part: str) -> dict[str, str]:
    params = {}
    for piece in part.split(";")[1:]:
        name, _, value = piece.strip().partition("=")
        params[name.strip().lower()] = value.strip().strip('"')
    return params


def links(header: str | None, base: str, origins: Sequence[str]) -> tuple[LinkMetadata, ...]:
    out = []
    for part in re.split(r",(?=\s*<)", header or ""):
        found = re.match(r"\s*<([^>]*)>", part)
        if not found:
            continue
        href = urljoin(base, found.group(1))
        params = _link_params(part)
        scope = _scope(href, origins)
        out.append(
            LinkMetadata(
                href=clean_url(href) if scope == "approved" else None,
                destination_scope=scope,
                rel=tuple(params.get("rel", "").split()),
                as_=params.get("as"),
                type=params.get("type"),
                crossorigin=params.get("crossorigin"),
            )
        )
    return tuple(out)


def _features(text: str | None) -> tuple[str, ...]:
    return tuple(sorted({part.split("=", 1)[0].strip() for part in (text or "").split(",") if part.strip()}))


def response_metadata(rid: str, response: Mapping[str, Any], origins: Sequence[str]) -> ResponseMetadata:
    url = str(response.get("url", ""))
    headers = _headers(response.get("headers") or {})
    length = headers.get("content-length", "")
    return ResponseMetadata(
        request_id=rid,
        url=clean_url(url),
        mime_type=response.get("mimeType"),
        content_length=int(length) if length.isdigit() else None,
        content_encoding=headers.get("content-encoding"),
        csp=csp(headers.get("content-security-policy"), origins),
        links=links(headers.get("link"), url, origins),
        policies=Policies(
            coop=headers.get("cross-origin-opener-policy"),
            coep=headers.get("cross-origin-embedder-policy"),
            corp=headers.get("cross-origin-resource-policy"),
            referrer_policy=headers.get("referrer-policy"),
            x_content_type_options=headers.get("x-content-type-options"),
            permissions_policy_features=_features(headers.get("permissions-policy")),
        ),
    )


HintMechanism = Literal["link_rel", "dom_link_rel"]


def _hints_of_link(rel: Sequence[str], href: str | None, mechanism: HintMechanism, declaration: str) -> list[AgentHint]:
    if not AGENT_RELS.intersection(r.lower() for r in rel):
        return []
    return [AgentHint(mechanism=mechanism, declaration=declaration, url=href, trust="page-declared-untrusted")]


def metadata(
    requests: Sequence[tuple[str, Mapping[str, Any]]],
    elements: Sequence[tuple[int, Mapping[str, Any]]],
    base: str,
    origins: Sequence[str],
) -> SafeMetadata:
    responses: list[ResponseMetadata] = []
    hints: list[AgentHint] = []
    for rid, entry in requests:
        response = (entry.get("response") or {}).get("response")
        if response and in_scope(str(response.get("url", "")), origins):
            meta = response_metadata(rid, response, origins)
            responses.append(meta)
            for link in meta.links:
                hints += _hints_of_link(link.rel, link.href, "link_rel", "Link: rel=" + " ".join(link.rel))
    dom_urls: list[DomUrl] = []
    excluded = 0
    for index, node in elements:
        attributes = dict(_pairs(node))
        for name in URL_ATTRIBUTES:
            if name not in attributes:
                continue
            if len(dom_urls) >= MAX_DOM_URLS:
                excluded += 1
                continue
            url = urljoin(base, attributes[name].strip())
            scope = _scope(url, origins)
            dom_urls.append(
                DomUrl(
                    node_index=index,
                    attribute=name,
                    url=clean_url(url) if scope == "approved" else None,
                    destination_scope=scope,
                )
            )
        if str(node.get("nodeName", "")).upper() == "LINK" and "rel" in attributes:
            href = urljoin(base, attributes.get("href", ""))
            kept = clean_url(href) if _scope(href, origins) == "approved" else None
            hints += _hints_of_link(attributes["rel"].split(), kept, "dom_link_rel", f"<link rel={attributes['rel']}>")
    return SafeMetadata(
        responses=tuple(responses),
        dom_urls=tuple(dom_urls),
        agent_hints=tuple(hints),
        excluded_dom_urls=excluded,
        headers_allowlisted=True,
    )


def _pairs(node: Mapping[str, Any]) -> list[tuple[str, str]]:
    flat = node.get("attributes") or []
    return [(str(flat[i]).lower(), str(flat[i + 1])) for i in range(0, len(flat) - 1, 2)]
