"""The model's state, grouped by router unit, as the compiled loops of :mod:`.kernel` take it (numba
compiles a namedtuple of arrays to fixed offsets: ``fifo.count[f]`` costs what a bare array does).

Indices: FIFO ``(v * P + i) * V + c`` (VC c of input i of node v); round robin per output ``v * P + o``
over the lanes ``j = i * V + c``; lock per (output, VC) ``(v * P + o) * V + c`` (-1: free).
"""
from collections import namedtuple

# tables.py: node v's allowed turns in row arow[v] of allowed (allowed_rows), its routes in row row[v] (row_and_xor)
Tables = namedtuple("Tables", "nports arow link allowed route vc row xor")
# FIFO (v*P+i)*V+c: its head word (the head register) and the D - 1 entries behind it (rtl/router/fifo.py
# HeadFifo), the index of the oldest of those and the count; flits per node; PIPE (pipeline.py): stage and
# the output it crosses to (trav) per FIFO, the ejection buffer and its count per node
Fifos = namedtuple("Fifos", "first buf head count occupied stage trav eject ecount")
# rr, used per output; lock, cur_w per (o, VC); cur_out, cur_vc per FIFO; wt [v*P+o, j, word] (fair) or [1,1,1]
Arbiters = namedtuple("Arbiters", "rr lock cur_out cur_vc wt used cur_w")
# per node + stimulus; next: per node the release cycle of its next flit (2**62: none), one compact array
# that the source phase polls every cycle instead of the stimulus; the AXI4-Stream interfaces' ingress
# queues (kernel.ni_phase): nicfg [queue depth, 0: native ports], ni per node, bcast per flit
Sources = namedtuple("Sources", "ptr end state head tail fields release accept lane next nicfg ni bcast")
# link_flits: flits sent per output in 16 bits, folded into int64 by Simulation.advance (SENT_SPAN)
# axq, axn, axroom: the AXI4-Stream interfaces' egress queues (kernel.axis_egress): words, count, room per node
Outputs = namedtuple("Outputs", "eject_ready counters eject_cycle tr_cycle tr_node tr_flit tr_ht scal link_flits "
                                "axq axn axroom")
Adaptive = namedtuple("Adaptive", "selection route2 vc2 disc use fault nfault f_cyc f_out f_node")
Broadcast = namedtuple("Broadcast", "mask tag origin held done bmode brr stall")  # fork tables; per input; per router
