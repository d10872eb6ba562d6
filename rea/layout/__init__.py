"""Binary layout, Mach-O and signature facts: pure derivations over what the lief readers report."""
