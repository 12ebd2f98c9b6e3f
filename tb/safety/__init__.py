"""cocotb benches of the safety-level hardware (docs/safety_hw.md): the cocotb test module
(:mod:`.cocotb_safety`), its runner, the expected rounds, and the broadcast fork network's verifier."""
