# REA developer recipes. `pip install rust-just` (in the [test] extra) provides `just`.

# install REA with everything the tests need
setup:
    sh scripts/setup test

# the whole suite, slow end-to-end tests included (what CI runs)
test:
    python3 -m pytest

# the fast subset while editing
quick:
    python3 -m pytest -m "not slow"

# speed and memory targets, printed as ratios against same-run baselines
bench:
    python3 -m tests.benchmarks

# import contracts of the pure core
lint:
    lint-imports --no-cache

# mypy strict over the whole of rea and effects (rea.families.TYPED)
typecheck:
    python3 -m mypy $(python3 -c "from rea.families import TYPED; print(*TYPED)")

# regenerate docs/public/product-catalog.json from the catalog table
catalog:
    python3 -m effects.catalog_export
