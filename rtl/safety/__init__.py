"""Safety levels in hardware (Wu, docs/safety_hw.md): the per-node level unit (:mod:`.unit`), the
safety-level broadcast fork (:mod:`.fork`) and the network of forks that checks it (:mod:`.broadcast_net`)."""
