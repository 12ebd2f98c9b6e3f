"""Formal proofs of the router's units with SymbiYosys from pip (docs/formal.md): harnesses that state the
properties with ``amaranth.hdl.Assert``/``Assume`` and :func:`.runner.prove`, which runs ``yowasp-sby``."""
