"""The Android family's pure core: manifest policy, DEX names and signatures, result building."""
