"""A faithful local replica of a SIPP court site (docs/sipp.md), for tests, benchmarks and
the offline demo.

``python -m reference.sipp_site --port 8800 --cases 500 --seed 1`` serves it; ``--truth FILE``
writes the ground truth (the item format of docs/contracts.md, see docs/item-format.md) and exits.
"""
