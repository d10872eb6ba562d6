"""ELF and PE constant names as tables (elf.h, winnt.h): the numbers a layout row records, named."""

from __future__ import annotations

SHT = {
    0: "SHT_NULL",
    1: "SHT_PROGBITS",
    2: "SHT_SYMTAB",
    3: "SHT_STRTAB",
    4: "SHT_RELA",
    5: "SHT_HASH",
    6: "SHT_DYNAMIC",
    7: "SHT_NOTE",
    8: "SHT_NOBITS",
    9: "SHT_REL",
    10: "SHT_SHLIB",
    11: "SHT_DYNSYM",
    14: "SHT_INIT_ARRAY",
    15: "SHT_FINI_ARRAY",
    16: "SHT_PREINIT_ARRAY",
    17: "SHT_GROUP",
    18: "SHT_SYMTAB_SHNDX",
    19: "SHT_RELR",
    0x6FFFFFF5: "SHT_GNU_ATTRIBUTES",
    0x6FFFFFF6: "SHT_GNU_HASH",
    0x6FFFFFF7: "SHT_GNU_LIBLIST",
    0x6FFFFFFD: "SHT_GNU_verdef",
    0x6FFFFFFE: "SHT_GNU_verneed",
    0x6FFFFFFF: "SHT_GNU_versym",
    0x70000001: "SHT_X86_64_UNWIND",
    0x70000003: "SHT_ARM_ATTRIBUTES",
    0x6FFF4C00: "SHT_LLVM_ODRTAB",
}
PT = {
    0: "PT_NULL",
    1: "PT_LOAD",
    2: "PT_DYNAMIC",
    3: "PT_INTERP",
    4: "PT_NOTE",
    5: "PT_SHLIB",
    6: "PT_PHDR",
    7: "PT_TLS",
    0x6474E550: "PT_GNU_EH_FRAME",
    0x6474E551: "PT_GNU_STACK",
    0x6474E552: "PT_GNU_RELRO",
    0x6474E553: "PT_GNU_PROPERTY",
    0x6474E554: "PT_GNU_SFRAME",
    0x70000001: "PT_ARM_EXIDX",
    0x70000003: "PT_RISCV_ATTRIBUTES",
}
STB = {0: "STB_LOCAL", 1: "STB_GLOBAL", 2: "STB_WEAK", 10: "STB_GNU_UNIQUE"}
STT = {
    0: "STT_NOTYPE",
    1: "STT_OBJECT",
    2: "STT_FUNC",
    3: "STT_SECTION",
    4: "STT_FILE",
    5: "STT_COMMON",
    6: "STT_TLS",
    10: "STT_GNU_IFUNC",
}
STV = {0: "STV_DEFAULT", 1: "STV_INTERNAL", 2: "STV_HIDDEN", 3: "STV_PROTECTED"}
SHN_UNDEF, SHN_LORESERVE, SHN_ABS, SHN_COMMON, SHN_XINDEX = 0, 0xFF00, 0xFFF1, 0xFFF2, 0xFFFF
SHN = {SHN_UNDEF: "SHN_UNDEF", SHN_ABS: "SHN_ABS", SHN_COMMON: "SHN_COMMON", SHN_XINDEX: "SHN_XINDEX"}
STT_FILE, STT_TLS = 4, 6
SHT_NULL, SHT_NOBITS = 0, 8
PT_NULL, PT_INTERP, PT_GNU_STACK, PT_GNU_RELRO = 0, 3, 0x6474E551, 0x6474E552
PF_X, PF_W, PF_R = 1, 2, 4
DF_BIND_NOW, DF_1_NOW, DF_1_PIE = 0x8, 0x1, 0x08000000

EM_386, EM_ARM, EM_X86_64, EM_AARCH64 = 3, 40, 62, 183
# (machine, r_type) -> name, for the machines the GOT/PLT maps cover
RELOCATION_TYPES = {
    EM_X86_64: {
        0: "R_X86_64_NONE",
        1: "R_X86_64_64",
        2: "R_X86_64_PC32",
        3: "R_X86_64_GOT32",
        4: "R_X86_64_PLT32",
        5: "R_X86_64_COPY",
        6: "R_X86_64_GLOB_DAT",
        7: "R_X86_64_JUMP_SLOT",
        8: "R_X86_64_RELATIVE",
        9: "R_X86_64_GOTPCREL",
        10: "R_X86_64_32",
        11: "R_X86_64_32S",
        16: "R_X86_64_DTPMOD64",
        17: "R_X86_64_DTPOFF64",
        18: "R_X86_64_TPOFF64",
        24: "R_X86_64_PC64",
        37: "R_X86_64_IRELATIVE",
        41: "R_X86_64_GOTPCRELX",
        42: "R_X86_64_REX_GOTPCRELX",
    },
    EM_386: {
        0: "R_386_NONE",
        1: "R_386_32",
        2: "R_386_PC32",
        5: "R_386_COPY",
        6: "R_386_GLOB_DAT",
        7: "R_386_JMP_SLOT",
        8: "R_386_RELATIVE",
        10: "R_386_GOTPC",
        42: "R_386_IRELATIVE",
    },
    EM_AARCH64: {
        0: "R_AARCH64_NONE",
        257: "R_AARCH64_ABS64",
        1024: "R_AARCH64_COPY",
        1025: "R_AARCH64_GLOB_DAT",
        1026: "R_AARCH64_JUMP_SLOT",
        1027: "R_AARCH64_RELATIVE",
        1032: "R_AARCH64_IRELATIVE",
    },
    EM_ARM: {2: "R_ARM_ABS32", 20: "R_ARM_COPY", 21: "R_ARM_GLOB_DAT", 22: "R_ARM_JUMP_SLOT", 23: "R_ARM_RELATIVE"},
}
JUMP_SLOT = {EM_X86_64: 7, EM_386: 7, EM_AARCH64: 1026, EM_ARM: 22}
GLOB_DAT = {EM_X86_64: 6, EM_386: 6, EM_AARCH64: 1025, EM_ARM: 21}
X86_FEATURE_1_AND, AARCH64_FEATURE_1_AND = 0xC0000002, 0xC0000000

DLL_CHARACTERISTICS = {
    0x20: "HIGH_ENTROPY_VA",
    0x40: "DYNAMIC_BASE",
    0x80: "FORCE_INTEGRITY",
    0x100: "NX_COMPAT",
    0x200: "NO_ISOLATION",
    0x400: "NO_SEH",
    0x800: "NO_BIND",
    0x1000: "APPCONTAINER",
    0x2000: "WDM_DRIVER",
    0x4000: "GUARD_CF",
    0x8000: "TERMINAL_SERVER_AWARE",
}
DYNAMIC_BASE, NX_COMPAT, GUARD_CF = 0x40, 0x100, 0x4000
IMAGE_GUARD_CF_INSTRUMENTED = 0x100
IMAGE_SYM_ABSOLUTE, IMAGE_SYM_DEBUG = -1, -2

CANARY_SYMBOLS = frozenset(
    {
        "__stack_chk_fail",
        "__stack_chk_guard",
        "__security_cookie",
        "__intel_security_cookie",
        "__stack_chk_fail_local",
        "__security_check_cookie",
    }
)


def named(table: dict[int, str], value: int) -> str | int:
    """The table's name for a value, else the number itself (the reference's scalar)."""
    return table.get(value, value)


def bare(name: str) -> str:
    """A symbol name without the leading underscores Mach-O and 32-bit PE add."""
    return name.lstrip("_")
