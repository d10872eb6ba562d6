"""The owned androguard worker: `python -m effects.android.worker`, one JSON request per line.

androguard parses hostile bytes, so it runs here, under an address-space ceiling set
before the first import, and the parent applies a deadline to every request (killing the
process group when it passes). A parsed program is cached per APK digest, so a second
query on the same APK answers from memory.
"""

from __future__ import annotations

import hashlib
import io
import os
import resource
import struct
import sys
import zipfile
import zlib
from collections import OrderedDict
from typing import Any

import orjson

from rea.android.bridges import method_calls

ANDROID_NS = "{http://schemas.android.com/apk/res/android}"
COMPONENT_TAGS = ("activity", "activity-alias", "service", "receiver", "provider")
CACHE_SIZE = 2


class WorkerError(Exception):
    def __init__(self, code: str, message: str, **details: Any) -> None:
        super().__init__(message)
        self.code, self.message, self.details = code, message, details


def _quiet() -> None:
    from loguru import logger

    logger.remove()  # androguard logs every parse step through loguru


class Loaded:
    """One APK's parse: the androguard APK first, the DEX program and its analysis on demand."""

    def __init__(self, path: str, limits: dict[str, Any]) -> None:
        from androguard.core.apk import APK

        size = os.path.getsize(path)
        if size > limits["max_apk_bytes"]:
            raise WorkerError(
                "truncated", f"the APK is {size} bytes, above max_apk_bytes", limit="max_apk_bytes", value=size
            )
        with open(path, "rb") as handle:
            self.data = handle.read()
        self.path = path
        self.infos = _zip_infos(self.data)
        _guard_members(self.infos, limits)
        try:
            self.apk = APK(self.data, raw=True)
        except Exception as exc:  # androguard raises what the bytes provoke
            raise WorkerError("invalid_request", f"not a readable APK: {type(exc).__name__}: {exc}") from exc
        if not self.apk.is_valid_APK():
            raise WorkerError("invalid_request", "the file has no readable AndroidManifest.xml", reason="not_an_apk")
        self.dexes: list[Any] | None = None
        self.analysis: Any = None

    def dex_names(self) -> list[str]:
        return sorted((i.filename for i in self.infos if _is_dex(i.filename)), key=_dex_order)

    def program(self) -> list[Any]:
        if self.dexes is None:
            from androguard.core.dex import DEX

            self.dexes = []
            for name in self.dex_names():
                try:
                    self.dexes.append(DEX(self.apk.get_file(name)))
                except Exception as exc:
                    raise WorkerError(
                        "invalid_request", f"{name} is not a readable DEX: {type(exc).__name__}: {exc}", member=name
                    ) from exc
        return self.dexes

    def analysed(self) -> Any:
        if self.analysis is None:
            from androguard.core.analysis.analysis import Analysis

            dx = Analysis()
            for dex in self.program():
                dx.add(dex)
            dx.create_xref()
            self.analysis = dx
        return self.analysis


def _zip_infos(data: bytes) -> list[zipfile.ZipInfo]:
    try:
        return zipfile.ZipFile(io.BytesIO(data)).infolist()
    except (zipfile.BadZipFile, ValueError, OSError, EOFError) as exc:
        raise WorkerError("invalid_request", f"not a readable zip/APK: {exc}", reason="not_a_zip") from exc


def _guard_members(infos: list[zipfile.ZipInfo], limits: dict[str, Any]) -> None:
    """Refuse before androguard inflates a member past the limits (zip-bomb resources)."""
    for info in infos:
        ratio = info.file_size / max(info.compress_size, 1)
        if info.file_size > limits["max_member_bytes"] or ratio > limits["max_compression_ratio"]:
            if info.filename in ("AndroidManifest.xml", "resources.arsc") or _is_dex(info.filename):
                raise WorkerError(
                    "truncated",
                    f"{info.filename} declares {info.file_size} bytes (ratio {ratio:.0f}), past the member limits",
                    member=info.filename,
                    limit="max_member_bytes"
                    if info.file_size > limits["max_member_bytes"]
                    else "max_compression_ratio",
                )


def _is_dex(name: str) -> bool:
    return name.startswith("classes") and name.endswith(".dex") and "/" not in name


def _dex_order(name: str) -> int:
    middle = name[len("classes") : -len(".dex")]
    return int(middle) if middle.isdigit() else (1 if middle == "" else 1 << 30)


# ------------------------------------------------------------------ package facts


def _attr(element: Any, name: str) -> str | None:
    value = element.get(ANDROID_NS + name)
    return None if value is None else str(value)


def _intent_filters(element: Any) -> list[dict[str, Any]]:
    out = []
    for f in element.findall("intent-filter"):
        out.append(
            {
                "actions": [_attr(a, "name") for a in f.findall("action") if _attr(a, "name")],
                "categories": [_attr(c, "name") for c in f.findall("category") if _attr(c, "name")],
                "data": [
                    {
                        k: v
                        for k in ("scheme", "host", "port", "path", "pathPrefix", "pathPattern", "mimeType")
                        if (v := _attr(d, k)) is not None
                    }
                    for d in f.findall("data")
                ],
            }
        )
    return out


def _components(app: Any) -> list[dict[str, Any]]:
    if app is None:
        return []
    out = []
    for tag in COMPONENT_TAGS:
        for element in app.findall(tag):
            out.append(
                {
                    "kind": tag,
                    "name": _attr(element, "name") or "",
                    "target_activity": _attr(element, "targetActivity"),
                    "exported_attribute": _attr(element, "exported"),
                    "enabled_attribute": _attr(element, "enabled"),
                    "permission": _attr(element, "permission"),
                    "authorities": _attr(element, "authorities"),
                    "intent_filters": _intent_filters(element),
                }
            )
    return out


def _resolve(apk: Any, value: str | None) -> str | None:
    """A `@7F...` reference in the manifest named by its resource (type/name)."""
    if value is None or not value.startswith("@"):
        return value
    try:
        name = apk.get_android_resources().get_resource_xml_name(int(value[1:], 16))
    except Exception:
        return value
    return str(name) if name else value


def _resource_count(apk: Any) -> int | None:
    table = apk.get_android_resources()
    if table is None:
        return None
    table.get_strings_resources()  # analyses the table (androguard is lazy)
    return sum(len(names) for types in table.resource_keys.values() for names in types.values())


def _dex_header(name: str, data: bytes) -> dict[str, Any]:
    facts: dict[str, Any] = {"name": name, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    if len(data) < 0x70 or not data.startswith(b"dex\n"):
        return {**facts, "valid_header": False}
    (checksum,) = struct.unpack_from("<I", data, 8)
    counts = struct.unpack_from("<IIIIIIII", data, 0x38)
    string_ids, _, type_ids, _, proto_ids, _, field_ids, _ = counts
    method_ids, _, class_defs, _ = struct.unpack_from("<IIII", data, 0x58)
    return {
        **facts,
        "valid_header": True,
        "version": data[4:7].decode("ascii", "replace"),
        "declared_checksum": checksum,
        "computed_checksum": zlib.adler32(data[12:]) & 0xFFFFFFFF,
        "declared_file_size": struct.unpack_from("<I", data, 0x20)[0],
        "string_ids": string_ids,
        "type_ids": type_ids,
        "proto_ids": proto_ids,
        "field_ids": field_ids,
        "method_ids": method_ids,
        "class_defs": class_defs,
    }


def package_facts(loaded: Loaded, params: dict[str, Any]) -> dict[str, Any]:
    from lxml import etree

    from effects.android import signatures

    apk, limits = loaded.apk, params["limits"]
    manifest = apk.get_android_manifest_xml()
    text = etree.tostring(manifest, pretty_print=True, encoding="unicode") if manifest is not None else ""
    app = manifest.find("application") if manifest is not None else None
    idsig_path = loaded.path + ".idsig"
    idsig = None
    if os.path.isfile(idsig_path) and os.path.getsize(idsig_path) <= limits["max_member_bytes"]:
        with open(idsig_path, "rb") as handle:
            idsig = handle.read()
    names = [i.filename for i in loaded.infos]
    return {
        "package_name": apk.get_package() or None,
        "version_code": apk.get_androidversion_code(),
        "version_name": apk.get_androidversion_name(),
        "min_sdk": apk.get_min_sdk_version(),
        "target_sdk": apk.get_target_sdk_version(),
        "max_sdk": apk.get_max_sdk_version(),
        "compile_sdk": (manifest.get(ANDROID_NS + "compileSdkVersion") or manifest.get("platformBuildVersionCode"))
        if manifest is not None
        else None,
        "manifest_text": text,
        "uses_permissions": [
            {"name": _attr(e, "name"), "max_sdk": _attr(e, "maxSdkVersion")}
            for tag in ("uses-permission", "uses-permission-sdk-23")
            for e in (manifest.findall(tag) if manifest is not None else [])
            if _attr(e, "name")
        ],
        "declared_permissions": [
            {"name": _attr(e, "name"), "protection_level": _attr(e, "protectionLevel")}
            for e in (manifest.findall("permission") if manifest is not None else [])
            if _attr(e, "name")
        ],
        "application": {
            "name": _attr(app, "name") if app is not None else None,
            "debuggable": _attr(app, "debuggable") if app is not None else None,
            "allow_backup": _attr(app, "allowBackup") if app is not None else None,
            "uses_cleartext_traffic": _attr(app, "usesCleartextTraffic") if app is not None else None,
            "network_security_config": _resolve(apk, _attr(app, "networkSecurityConfig")) if app is not None else None,
        },
        "components": _components(app),
        "entries": [
            {"name": i.filename, "bytes": i.file_size, "compressed_bytes": i.compress_size} for i in loaded.infos
        ],
        "duplicate_entries": sorted({n for n in names if names.count(n) > 1}),
        "dex": [_dex_header(n, apk.get_file(n)) for n in loaded.dex_names()],
        "resource_count": _resource_count(apk),
        "signatures": signatures.verify_all(apk, loaded.data, idsig, limits["max_member_bytes"]),
    }


# ------------------------------------------------------------------ code queries


def _classes(loaded: Loaded) -> list[Any]:
    return [c for dex in loaded.program() for c in dex.get_classes()]


def class_names(loaded: Loaded, params: dict[str, Any]) -> dict[str, Any]:
    return {"classes": sorted({c.get_name() for c in _classes(loaded)})}


def _method_facts(m: Any) -> dict[str, Any]:
    code = m.get_code()
    return {
        "name": m.get_name(),
        "descriptor": m.get_descriptor().replace(" ", ""),
        "access_flags": m.get_access_flags(),
        "has_code": code is not None,
        "instruction_bytes": code.get_length() * 2 if code is not None else 0,
    }


def _find_class(loaded: Loaded, descriptor: str) -> Any:
    for c in _classes(loaded):
        if c.get_name() == descriptor:
            return c
    raise WorkerError("invalid_request", f"no class {descriptor} in the APK's DEX files", reason="class_not_found")


def class_facts(loaded: Loaded, params: dict[str, Any]) -> dict[str, Any]:
    c = _find_class(loaded, params["descriptor"])
    prefix = params["descriptor"][:-1] + "$"
    return {
        "descriptor": c.get_name(),
        "superclass": c.get_superclassname(),
        "interfaces": [str(i) for i in c.get_interfaces() or []],
        "access_flags": c.get_access_flags(),
        "methods": [_method_facts(m) for m in c.get_methods()],
        "fields": [
            {"name": f.get_name(), "descriptor": f.get_descriptor(), "access_flags": f.get_access_flags()}
            for f in c.get_fields()
        ],
        "inner_classes": sorted(
            n.get_name()
            for n in _classes(loaded)
            if n.get_name().startswith(prefix) and "/" not in n.get_name()[len(prefix) :]
        ),
    }


def method_facts(loaded: Loaded, params: dict[str, Any]) -> dict[str, Any]:
    c = _find_class(loaded, params["descriptor"])
    m = next(
        (
            m
            for m in c.get_methods()
            if m.get_name() == params["method_name"] and _method_facts(m)["descriptor"] == params["method_descriptor"]
        ),
        None,
    )
    if m is None:
        raise WorkerError("invalid_request", "the method is not in the class", reason="method_not_found")
    smali = "\n".join(f"{i.get_name()} {i.get_output()}".rstrip() for i in m.get_instructions()) if m.get_code() else ""
    java, failure = None, None
    if m.get_code() is not None and params["decompile"]:
        try:
            from androguard.decompiler.decompile import DvMethod

            dv = DvMethod(loaded.analysed().get_method(m))
            dv.process(doAST=False)
            java = dv.get_source()
        except Exception as exc:  # DAD fails on some bytecode: smali is the fallback
            failure = f"{type(exc).__name__}: {exc}"
    return {**_method_facts(m), "smali": smali, "java": java, "decompile_failure": failure}


def references(loaded: Loaded, params: dict[str, Any]) -> dict[str, Any]:
    dx = loaded.analysed()
    ca = dx.get_class_analysis(params["descriptor"])
    if ca is None or ca.is_external():
        raise WorkerError("invalid_request", "no class of that name in the APK's DEX files", reason="class_not_found")
    rows = []
    if params.get("method_name") is None:
        for caller_class, refs in ca.get_xref_from().items():
            for kind, caller, _offset in refs:
                rows.append(_ref_row(caller_class.name, caller, kind))
    else:
        for method in ca.get_methods():
            if (
                method.name == params["method_name"]
                and method.descriptor.replace(" ", "") == params["method_descriptor"]
            ):
                for caller_class, caller, _offset in method.get_xref_from():
                    rows.append(_ref_row(caller_class.name, caller, "call"))
    return {"references": rows}


def _ref_row(class_name: str, caller: Any, kind: Any) -> dict[str, Any]:
    name = getattr(caller, "name", None) or getattr(caller, "get_name", lambda: str(caller))()
    descriptor = getattr(caller, "descriptor", None)
    if descriptor is None and hasattr(caller, "get_descriptor"):
        descriptor = caller.get_descriptor()
    return {
        "kind": str(getattr(kind, "name", kind)).lower() if not isinstance(kind, int) else "reference",
        "class": str(class_name),
        "method": str(name),
        "descriptor": str(descriptor or "").replace(" ", ""),
    }


def bridge_calls(loaded: Loaded, params: dict[str, Any]) -> dict[str, Any]:
    """Every call to System.loadLibrary/load and WebView.addJavascriptInterface/loadUrl in every DEX."""
    rows: list[dict[str, Any]] = []
    total = 0
    for dex_name, dex in zip(loaded.dex_names(), loaded.program()):
        for c in dex.get_classes():
            for m in c.get_methods():
                if m.get_code() is None:
                    continue
                for call in method_calls(m.get_instructions()):
                    total += 1
                    if len(rows) < params["max_calls"]:
                        descriptor = m.get_descriptor().replace(" ", "")
                        rows.append(
                            {**call, "dex": dex_name, "class": c.get_name(), "method": m.get_name() + descriptor}
                        )
    return {"calls": rows, "total_calls": total}


OPERATIONS = {
    "bridges": bridge_calls,
    "package": package_facts,
    "classes": class_names,
    "class": class_facts,
    "method": method_facts,
    "references": references,
}


def _answer(cache: OrderedDict[str, Loaded], request: dict[str, Any]) -> dict[str, Any]:
    key = request["sha256"]
    loaded = cache.get(key)
    if loaded is None:
        loaded = Loaded(request["path"], request["params"]["limits"])
        cache[key] = loaded
        while len(cache) > CACHE_SIZE:
            cache.popitem(last=False)
    cache.move_to_end(key)
    loaded.path = request["path"]  # same bytes by digest; a .idsig is looked up beside the path asked about
    return OPERATIONS[request["op"]](loaded, request["params"])


def reply_for(cache: OrderedDict[str, Loaded], request: dict[str, Any]) -> dict[str, Any]:
    """One answer: the facts, or a canonical error (whatever the bytes made androguard raise)."""
    try:
        return {"id": request["id"], "ok": _answer(cache, request)}
    except WorkerError as exc:
        return {"id": request["id"], "error": {"code": exc.code, "message": exc.message, "details": exc.details}}
    except MemoryError:
        cache.clear()
        message = "the worker reached its memory ceiling"
        return {
            "id": request["id"],
            "error": {"code": "resource_constraint", "message": message, "details": {"resource": "memory"}},
        }
    except Exception as exc:  # androguard raises whatever hostile bytes provoke
        message = f"androguard could not read the APK: {type(exc).__name__}: {exc}"
        details = {"exception": type(exc).__name__, "accepted": "a well-formed APK"}
        return {"id": request["id"], "error": {"code": "invalid_request", "message": message, "details": details}}


def main() -> int:
    ceiling = int(os.environ.get("REA_ANDROID_WORKER_MAX_BYTES", "0"))
    if ceiling > 0:
        resource.setrlimit(resource.RLIMIT_AS, (ceiling, ceiling))
    _quiet()
    cache: OrderedDict[str, Loaded] = OrderedDict()
    for line in sys.stdin.buffer:
        reply = reply_for(cache, orjson.loads(line))
        sys.stdout.buffer.write(orjson.dumps(reply, default=str) + b"\n")
        sys.stdout.buffer.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
