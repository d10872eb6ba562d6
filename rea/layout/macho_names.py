"""Mach-O names as tables: CPU types and subtypes, file types, header flags (mach-o/loader.h, machine.h)."""

from __future__ import annotations

CPU_ARCH_ABI64 = 0x01000000
_CPU = {
    7: "i386",
    7 | CPU_ARCH_ABI64: "x86_64",
    12: "arm",
    12 | CPU_ARCH_ABI64: "arm64",
    18: "ppc",
    18 | CPU_ARCH_ABI64: "ppc64",
    12 | 0x02000000: "arm64_32",
}
_ARM_SUBTYPES = {
    5: "armv4t",
    6: "armv6",
    7: "armv5",
    9: "armv7",
    11: "armv7s",
    12: "armv7k",
    14: "armv6m",
    15: "armv7m",
    16: "armv7em",
}
_SUBTYPE_MASK = 0x00FFFFFF

FILE_TYPES = {
    1: "MH_OBJECT",
    2: "MH_EXECUTE",
    3: "MH_FVMLIB",
    4: "MH_CORE",
    5: "MH_PRELOAD",
    6: "MH_DYLIB",
    7: "MH_DYLINKER",
    8: "MH_BUNDLE",
    9: "MH_DYLIB_STUB",
    10: "MH_DSYM",
    11: "MH_KEXT_BUNDLE",
    12: "MH_FILESET",
}

HEADER_FLAGS = {
    0x1: "MH_NOUNDEFS",
    0x2: "MH_INCRLINK",
    0x4: "MH_DYLDLINK",
    0x8: "MH_BINDATLOAD",
    0x10: "MH_PREBOUND",
    0x20: "MH_SPLIT_SEGS",
    0x40: "MH_LAZY_INIT",
    0x80: "MH_TWOLEVEL",
    0x100: "MH_FORCE_FLAT",
    0x200: "MH_NOMULTIDEFS",
    0x400: "MH_NOFIXPREBINDING",
    0x800: "MH_PREBINDABLE",
    0x1000: "MH_ALLMODSBOUND",
    0x2000: "MH_SUBSECTIONS_VIA_SYMBOLS",
    0x4000: "MH_CANONICAL",
    0x8000: "MH_WEAK_DEFINES",
    0x10000: "MH_BINDS_TO_WEAK",
    0x20000: "MH_ALLOW_STACK_EXECUTION",
    0x40000: "MH_ROOT_SAFE",
    0x80000: "MH_SETUID_SAFE",
    0x100000: "MH_NO_REEXPORTED_DYLIBS",
    0x200000: "MH_PIE",
    0x400000: "MH_DEAD_STRIPPABLE_DYLIB",
    0x800000: "MH_HAS_TLV_DESCRIPTORS",
    0x1000000: "MH_NO_HEAP_EXECUTION",
    0x2000000: "MH_APP_EXTENSION_SAFE",
    0x4000000: "MH_NLIST_OUTOFSYNC_WITH_DYLDINFO",
    0x8000000: "MH_SIM_SUPPORT",
    0x80000000: "MH_DYLIB_IN_CACHE",
}
MH_PIE, MH_ALLOW_STACK_EXECUTION, MH_NO_HEAP_EXECUTION = 0x200000, 0x20000, 0x1000000
CS_RUNTIME = 0x10000


def arch_name(cputype: int, cpusubtype: int) -> str:
    """The architecture name lipo and list_architectures use (x86_64, arm64, arm64e, armv7, ...)."""
    cpu = cputype & 0xFFFFFFFF
    sub = cpusubtype & _SUBTYPE_MASK
    if cpu == 12:
        return _ARM_SUBTYPES.get(sub, "arm")
    if cpu == 12 | CPU_ARCH_ABI64 and sub == 2:
        return "arm64e"
    if cpu == 7 | CPU_ARCH_ABI64 and sub == 8:
        return "x86_64h"
    return _CPU.get(cpu, f"cpu-0x{cpu:x}")


def file_type_name(value: int) -> str:
    return FILE_TYPES.get(value, f"0x{value:x}")


def header_flag_names(flags: int) -> list[str]:
    return [name for bit, name in sorted(HEADER_FLAGS.items()) if flags & bit]


_CPU_TYPE_NAMES = {
    7: "CPU_TYPE_X86",
    7 | CPU_ARCH_ABI64: "CPU_TYPE_X86_64",
    12: "CPU_TYPE_ARM",
    12 | CPU_ARCH_ABI64: "CPU_TYPE_ARM64",
    12 | 0x02000000: "CPU_TYPE_ARM64_32",
    18: "CPU_TYPE_POWERPC",
    18 | CPU_ARCH_ABI64: "CPU_TYPE_POWERPC64",
}
_SUBTYPE_NAMES = {
    7: {3: "CPU_SUBTYPE_I386_ALL"},
    7 | CPU_ARCH_ABI64: {3: "CPU_SUBTYPE_X86_64_ALL", 8: "CPU_SUBTYPE_X86_64_H"},
    12 | CPU_ARCH_ABI64: {0: "CPU_SUBTYPE_ARM64_ALL", 1: "CPU_SUBTYPE_ARM64_V8", 2: "CPU_SUBTYPE_ARM64E"},
    12: {
        0: "CPU_SUBTYPE_ARM_ALL",
        6: "CPU_SUBTYPE_ARM_V6",
        9: "CPU_SUBTYPE_ARM_V7",
        11: "CPU_SUBTYPE_ARM_V7S",
        12: "CPU_SUBTYPE_ARM_V7K",
    },
}


def cpu_type_name(cputype: int) -> str:
    cpu = cputype & 0xFFFFFFFF
    return _CPU_TYPE_NAMES.get(cpu, f"0x{cpu:x}")


def cpu_subtype_name(cputype: int, cpusubtype: int) -> str:
    sub = cpusubtype & _SUBTYPE_MASK
    return _SUBTYPE_NAMES.get(cputype & 0xFFFFFFFF, {}).get(sub, str(sub))
