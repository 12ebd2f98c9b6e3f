"""Route-compute units of the metacube MC(k, m) (Li, Peng and Chu Sec. 4.1), from ``sim/routing/metacube.py``.

Node-generic: one module serves every node (the node address arrives on ``node_id``). Gates for the
per-node part, small ROMs for the class-path tables:

* ``diff_c``: field ``m_c`` of ``node_id XOR dest`` with ``c`` the node's class (an h-way mux);
  a cube hop corrects its *lowest* set bit (port = that bit's index, a priority chain);
* full variant (``metacube_whp``): ROM ``r[cdiff]`` (the class path's last position, 2**k entries) and
  ROM ``step[cdiff, pos]`` (which class bit the cross hop after position ``pos`` flips, at most
  2**k * (2**k + 1) entries); while ``pos < 2**k`` and ``diff_c != 0`` take the cube port, else eject
  at ``pos == r`` or take cross port ``m + step`` and increment ``pos``;
* shortest variant (``metacube_skip``): the target class is the first class ``cs XOR W[cdiff][i]``
  (i < h) whose field differs, else ``ct`` (per ``cdiff`` a priority chain over the h classes);
  in the target class correct the field or eject; elsewhere the cross port of the lowest bit of
  ``c XOR target``;
* VC: a cross hop from ``c`` to ``c XOR 2**b`` adds one on a descent of the Gray rank (ROM
  ``descent[c, b]``, 2**k * k bits), saturating at ``num_vcs - 1``; cube hops keep the VC.
"""
from __future__ import annotations

from amaranth import Cat, Module, Mux, Signal

from ...sim.routing.metacube import MetacubeRouting, gray_rank
from ..gates import node_address, rom
from .base import InjectUnit, RouteUnit, RoutingRTL, register


def lowest_bit(m: Module, value, out: Signal, offset: int = 0) -> None:
    """``out = offset + index of the lowest set bit of value`` (a priority chain; value != 0)."""
    for j in reversed(range(len(value))):
        with m.If(value[j]):
            m.d.comb += out.eq(offset + j)


class _MetacubeRouteUnit(RouteUnit):
    def elaborate(self, platform):
        m = Module()
        routing = self.routing
        k, mm, h = routing.k, routing.m, routing.h
        fb = mm * h
        node = node_address(self)
        dest, cdiff = self.route.dest, self.route.cdiff
        c = Signal(k, name="cls")
        m.d.comb += c.eq(node[fb:])
        x = Signal(fb)
        m.d.comb += x.eq(node[:fb] ^ dest[:fb])
        fields = [x[mm * j:mm * (j + 1)] for j in range(h)]
        diff_c = Signal(mm)
        with m.Switch(c):
            for j in range(h):
                with m.Case(j):
                    m.d.comb += diff_c.eq(fields[j])
        cube_port = Signal(range(mm))
        lowest_bit(m, diff_c, cube_port)
        local = routing.topology.local_port(0)
        m.d.comb += [self.port.eq(local), self.new_route.eq(self.route)]

        def cross(step_bit):
            """Leave on the cross port flipping class bit ``step_bit``; the VC counts descents."""
            m.d.comb += self.port.eq(mm + step_bit)
            if routing.num_vcs > 1:
                desc = Signal()
                rom(m, Cat(step_bit, c), {(cc << len(step_bit)) | b: int(gray_rank(cc ^ (1 << b)) < gray_rank(cc))
                                          for cc in range(h) for b in range(k)}, desc)
                vc, top = self.route.vc, routing.num_vcs - 1
                nxt = Mux(desc & (vc != top), vc + 1, vc)
                m.d.comb += [self.vc.eq(nxt), self.new_route.vc.eq(nxt)]

        def keep_vc():
            if routing.num_vcs > 1:
                m.d.comb += self.vc.eq(self.route.vc)

        keep_vc()
        paths = routing.paths
        if not routing.shortest:
            pos = self.route.pos
            r = Signal(range(h + 1))
            rom(m, cdiff, {d: len(p) - 1 for d, p in enumerate(paths)}, r)
            step = Signal(range(max(2, k)))
            sel = Cat(pos, cdiff)
            rom(m, sel, {(d << len(pos)) | i: (p[i] ^ p[i + 1]).bit_length() - 1
                         for d, p in enumerate(paths) for i in range(len(p) - 1)}, step)
            with m.If((pos < h) & (diff_c != 0)):
                m.d.comb += self.port.eq(cube_port)
            with m.Elif(pos == r):
                pass                                         # eject, header unchanged
            with m.Else():
                cross(step)
                m.d.comb += self.new_route.pos.eq(pos + 1)
            return m
        # shortest: the first class on the path whose field differs, else the destination class
        fdiff = Signal(h)
        m.d.comb += fdiff.eq(Cat(*[f != 0 for f in fields]))
        cs = Signal(k)
        m.d.comb += cs.eq(dest[fb:] ^ cdiff)
        target = Signal(k)
        with m.Switch(cdiff):
            for d, p in enumerate(paths):
                with m.Case(d):
                    m.d.comb += target.eq(cs ^ p[-1])
                    for i in reversed(range(h)):               # the last assignment wins: smallest i
                        with m.If(fdiff.bit_select(cs ^ p[i], 1)):
                            m.d.comb += target.eq(cs ^ p[i])
        step = Signal(range(max(2, k)))
        lowest_bit(m, c ^ target, step)
        with m.If(target == c):
            with m.If(diff_c != 0):
                m.d.comb += self.port.eq(cube_port)
        with m.Else():
            cross(step)
        return m


class _MetacubeInjectUnit(InjectUnit):
    def elaborate(self, platform):
        m = Module()
        routing = self.routing
        fb, n = routing.m * routing.h, routing.n
        m.d.comb += self.route.as_value().eq(0)
        m.d.comb += [self.route.dest.eq(self.dest[:n]),
                     self.route.cdiff.eq(node_address(self)[fb:n] ^ self.dest[fb:n])]
        if not routing.shortest:          # to its own node: the class cycle's end, r = 2**k (0 hops)
            m.d.comb += self.route.pos.eq(Mux(node_address(self) == self.dest[:n], len(routing.paths[0]) - 1, 0))
        return m


@register(MetacubeRouting)
class MetacubeRTL(RoutingRTL):
    """Sec. 4.1 class-path routing (full or shortest) with descent-count VCs; node-generic."""

    node_generic = True
    route_unit_cls, inject_unit_cls = _MetacubeRouteUnit, _MetacubeInjectUnit
