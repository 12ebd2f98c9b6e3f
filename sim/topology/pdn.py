"""Perfect difference sets and perfect difference networks (Parhami and Rakov).

Perfect difference set (Definition 1): ``delta + 1`` residues mod ``n = delta**2 + delta + 1`` whose
``delta**2 + delta`` ordered differences are ``1 .. n-1``, each exactly once. Normal form:
``{0, 1, s_2, ..., s_delta}`` with ``1 < s_2 < ... < s_delta``. :func:`pds_registry` gives one
normal-form set for every prime-power order (the paper's own sets where it prints one, otherwise the
lexicographically smallest normal form of a Singer set, computed once and cached).

Port numbering of :class:`PerfectDifferenceNetwork` (fixed; the chord-switch routers use it). The
chords are the nonzero elements ``e_0 < e_1 < ... < e_{m-1}`` of the set; port ``2*t`` is the
*forward* chord ``+e_t`` (to ``x + e_t``) and port ``2*t + 1`` the *backward* chord ``-e_t`` (to
``x - e_t``), all mod n. For a normal-form set this is Definition 2's order::

    port 0: +1   port 1: -1   port 2: +s_2   port 3: -s_2   ...   port 2*delta-1: -s_delta

The back port of forward port ``2t`` is ``2t + 1`` at the far node and vice versa. A set without 0
(Definition 4, a *0-free* PDS) gives the 0-free PDN with ``2*delta + 2`` ports, same rule.

Degenerate chords: a chord whose offset is 0 mod n, or equals the offset of a lower-numbered port (e.g.
``+t_a == -t_b`` mod n when ``t_a + t_b == 0``), is **left unconnected** (``neighbor`` returns None),
so a router never has two ports to one neighbour. With 0 in a PDS this cannot happen (n is odd and
``s_a + s_b == 0`` would repeat the difference ``s_a - 0 == 0 - s_b``), but 0-free sets can have it:
``{3, 4, 6}`` mod 7 has ``+3 == -4`` and ``+4 == -3``, so two of its six ports are unconnected.

:class:`BipartitePDN` (Definition 2, Fig. 2b/8): ``n`` hosts ``0..n-1`` and ``n`` switches
``n..2n-1`` (printed ``k'``). Host ``i`` port ``t`` leads to switch ``i + s_t`` and switch ``k`` port
``t`` leads back to host ``k - s_t`` (``s_t`` the t-th element of the set, *including* 0), so a
link's two ends carry the same port number.

:class:`ProductPDN` (Definition 3): ``H_{q-1} x ... x H_0``; node ``x = sum_i x_i * N_i`` with
``N_i = n_0 * ... * n_{i-1}`` (dimension 0 least significant), printed ``x_{q-1},...,x_0``. Ports in
dimension order: dimension 0's ports first (its own numbering), then dimension 1's, and so on.

Over 400 lines: the sets, their registry and every PDN form (basic, 0-free, product, bipartite) share the
difference arithmetic and the port numbering above; split, each part would restate it.
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from functools import lru_cache
from types import MappingProxyType

from cubenoc.errors import CubenocError, require_int

from .base import Topology

#: largest order the registry computes (Singer sets over GF(q^3), q^3 <= 32768 field elements)
MAX_REGISTRY_ORDER = 32

#: sets the paper prints (normal form): {0,1,3} (Figs. 2b, 5, 8), {0,1,3,9} (Fig. 2a) and the
#: 133-node set of Sec. 5 (after Theorem 5); validated on use like every other set.
PAPER_SETS = {
    1: (0, 1),
    2: (0, 1, 3),
    3: (0, 1, 3, 9),
    11: (0, 1, 3, 12, 20, 34, 38, 81, 88, 94, 104, 109),
}


# ---- perfect difference sets -------------------------------------------------------------------
def pds_modulus(delta: int) -> int:
    """``n = delta**2 + delta + 1``."""
    return delta * delta + delta + 1


def pds_order(size: int) -> int:
    """The order delta of a set with ``size = delta + 1`` elements."""
    return size - 1


def check_pds(elements, modulus: int | None = None) -> tuple[int, ...]:
    """Validate a perfect difference set; return its elements (in the given order).

    ``modulus`` defaults to ``delta**2 + delta + 1`` for ``delta + 1`` elements. Raises
    :class:`CubenocError` saying why the set is not a PDS.
    """
    try:
        elems = tuple(elements)
    except TypeError:
        raise CubenocError(f"a perfect difference set must be a list of integers, got {elements!r}") from None
    for e in elems:
        if isinstance(e, bool) or not isinstance(e, int):
            raise CubenocError(f"perfect difference set elements must be integers, got {e!r} in {list(elems)}")
    if len(elems) < 2:
        raise CubenocError(f"a perfect difference set needs at least 2 elements (order delta >= 1), got {list(elems)}")
    delta = len(elems) - 1
    n = pds_modulus(delta)
    if modulus is not None and modulus != n:
        raise CubenocError(f"a set of {len(elems)} elements is a PDS mod {n} (= delta^2+delta+1, delta={delta}), "
                           f"not mod {modulus}")
    for e in elems:
        if not 0 <= e < n:
            raise CubenocError(f"{_fmt(elems)} is not a perfect difference set: {len(elems)} elements need "
                               f"residues in 0..{n - 1} (n = delta^2+delta+1 = {n}), got {e}")
    if len(set(elems)) != len(elems):
        dup = sorted({e for e in elems if elems.count(e) > 1})
        raise CubenocError(f"{_fmt(elems)} is not a perfect difference set: element(s) {dup} repeated")
    seen: dict[int, tuple[int, int]] = {}
    for a in elems:
        for b in elems:
            if a == b:
                continue
            d = (a - b) % n
            if d in seen:
                a0, b0 = seen[d]
                missing = sorted(set(range(1, n)) - {(x - y) % n for x in elems for y in elems if x != y})
                raise CubenocError(f"{_fmt(elems)} is not a perfect difference set mod {n}: difference {d} "
                                   f"occurs twice ({a0}-{b0} and {a}-{b}); never occurring: {missing}")
            seen[d] = (a, b)
    return elems


def is_pds(elements) -> bool:
    try:
        check_pds(elements)
    except CubenocError:
        return False
    return True


def parse_pds(text: str) -> tuple[int, ...]:
    """``"0,1,3,9"`` -> ``(0, 1, 3, 9)``, validated."""
    try:
        elems = tuple(int(t) for t in str(text).replace(" ", "").strip("{}").split(",") if t != "")
    except ValueError:
        raise CubenocError(f"a perfect difference set is comma-separated integers like 0,1,3,9, got {text!r}") from None
    return check_pds(elems)


def _fmt(elems) -> str:
    return "{" + ",".join(str(e) for e in elems) + "}"


def difference_table(elems) -> Mapping[int, tuple[int, int]]:
    """``d -> (i, j)``: the unique ordered pair of *indices* with ``elems[i] - elems[j] == d`` (mod n). Built
    once per set (Algorithm 1's ROM and every route look it up), read-only."""
    return set_differences(check_pds(elems))


@lru_cache(maxsize=64)
def set_differences(elems: tuple[int, ...]) -> Mapping[int, tuple[int, int]]:
    """:func:`difference_table` of a set already checked (a topology's ``pds``): no check, one table per set."""
    n = pds_modulus(len(elems) - 1)
    return MappingProxyType({(a - b) % n: (i, j) for i, a in enumerate(elems) for j, b in enumerate(elems)
                             if i != j})


def normal_form(elems) -> tuple[int, ...]:
    """The translate containing 0 and 1 (unique: exactly one pair differs by 1), sorted."""
    elems = check_pds(elems)
    n = pds_modulus(len(elems) - 1)
    i, j = difference_table(elems)[1]          # elems[i] - elems[j] == 1
    return tuple(sorted((e - elems[j]) % n for e in elems))


def canonical_form(elems) -> tuple[int, ...]:
    """The lexicographically smallest normal form over all multipliers ``u`` (gcd(u, n) = 1)."""
    elems = check_pds(elems)
    n = pds_modulus(len(elems) - 1)
    return min(normal_form(tuple(sorted((u * e) % n for e in elems)))
               for u in range(1, n) if math.gcd(u, n) == 1)


def zero_free(elems, shift: int = 1) -> tuple[int, ...]:
    """Definition 4: the translate ``elems + shift`` (must not contain 0). ``shift = 1`` gives the
    canonical 0-free set of a normal-form set ({0,1,3} -> {1,2,4})."""
    elems = check_pds(elems)
    n = pds_modulus(len(elems) - 1)
    out = tuple(sorted((e + shift) % n for e in elems))
    if 0 in out:
        raise CubenocError(f"{_fmt(elems)} + {shift} contains 0; pick a shift so that no element becomes 0 mod {n}")
    return out


# ---- prime powers and Singer sets --------------------------------------------------------------
def prime_power(q: int) -> tuple[int, int] | None:
    """``(p, k)`` with ``q == p**k`` for a prime p, or None."""
    if q < 2:
        return None
    p = next(d for d in range(2, q + 1) if q % d == 0)
    k = 0
    while q % p == 0:
        q //= p
        k += 1
    return (p, k) if q == 1 else None


def _field_powers(p: int, m: int):
    """Powers ``x**i`` (digit tuples, low first) for the first primitive monic degree-m polynomial over
    GF(p) in lexicographic order of its coefficients (x^m = c_0 + c_1 x + ... + c_{m-1} x^{m-1})."""
    N = p ** m - 1
    one = [1] + [0] * (m - 1)
    for c in itertools.product(range(p), repeat=m):
        if c[0] == 0:
            continue
        cur, out = list(one), []
        for i in range(N):
            out.append(tuple(cur))
            top = cur[-1]
            cur = [0] + cur[:-1]
            if top:
                cur = [(a + top * ck) % p for a, ck in zip(cur, c)]
            if cur == one:
                break
        if len(out) == N:
            return out
    raise AssertionError(f"no primitive polynomial of degree {m} over GF({p})")  # pragma: no cover


def singer_set(q: int) -> tuple[int, ...]:
    """Singer's perfect difference set of order q (a prime power): the exponents i (mod n) for which
    ``Tr_{GF(q^3)/GF(q)}(g**i) == 0``, g a primitive element of GF(q^3) (ref. [25] of Parhami and Rakov)."""
    pk = prime_power(q)
    if pk is None:
        raise CubenocError(f"Singer sets exist for prime-power orders, got {q}")
    p, k = pk
    powers = _field_powers(p, 3 * k)
    N = len(powers)
    n = pds_modulus(q)
    zero = tuple([0] * (3 * k))
    found = set()
    for i in range(N):
        a, b, c = powers[i], powers[(i * q) % N], powers[(i * q * q) % N]
        if tuple((x + y + z) % p for x, y, z in zip(a, b, c)) == zero:
            found.add(i % n)
    return check_pds(sorted(found))


@lru_cache(maxsize=None)
def registry_set(delta: int) -> tuple[int, ...]:
    """The registry's normal-form PDS of order ``delta`` (paper's set if printed, else canonical Singer)."""
    delta = require_int(delta, "delta", 1, MAX_REGISTRY_ORDER)
    if delta in PAPER_SETS:
        return normal_form(check_pds(PAPER_SETS[delta]))
    if prime_power(delta) is None:
        known = ", ".join(str(d) for d in prime_power_orders(MAX_REGISTRY_ORDER))
        raise CubenocError(f"no perfect difference set of order {delta} is known (Singer sets exist for "
                           f"prime-power orders: {known})")
    return canonical_form(singer_set(delta))


def prime_power_orders(limit: int) -> list[int]:
    """Orders 2..limit that are prime powers (the orders with a known PDS)."""
    return [d for d in range(2, limit + 1) if prime_power(d) is not None]


def pds_registry(limit: int = 16) -> dict[int, tuple[int, ...]]:
    """``{delta: normal-form PDS}`` for every prime-power order up to ``limit``."""
    return {d: registry_set(d) for d in prime_power_orders(require_int(limit, "limit", 2, MAX_REGISTRY_ORDER))}


def as_pds(spec) -> tuple[int, ...]:
    """A PDS from a set/list, a string ``"0,1,3,9"``, or an order delta (registry)."""
    if isinstance(spec, str):
        return parse_pds(spec)
    if isinstance(spec, int) and not isinstance(spec, bool):
        return registry_set(spec)
    return check_pds(spec)


# ---- networks ----------------------------------------------------------------------------------
class PerfectDifferenceNetwork(Topology):
    """The chordal ring of Definition 2 (0 in the set) or Definition 4 (0-free set); see the module
    docstring for the port numbering and the handling of degenerate chords."""

    family = "pdn"

    def __init__(self, pds):
        elems = as_pds(pds)
        self.pds = tuple(sorted(elems))
        self.delta = len(self.pds) - 1
        self.n = pds_modulus(self.delta)
        self.zero_free = 0 not in self.pds
        #: chord offsets in port order: port 2t -> +chords[t], port 2t+1 -> -chords[t]
        self.chords = tuple(e for e in self.pds if e != 0)
        offsets = []
        for e in self.chords:
            offsets += [e % self.n, (-e) % self.n]
        self.port_offsets = tuple(offsets)
        first: dict[int, int] = {}
        connected = []
        for p, off in enumerate(offsets):
            ok = off != 0 and off not in first
            connected.append(ok)
            if ok:
                first[off] = p
        self.port_connected = tuple(connected)
        #: offset (mod n) -> the connected port that reaches it
        self.offset_port = first

    @property
    def params(self) -> dict:
        return {"set": ",".join(str(e) for e in self.pds)}

    @property
    def name(self) -> str:
        return f"pdn_{'_'.join(str(e) for e in self.pds)}"

    @property
    def num_nodes(self) -> int:
        return self.n

    def num_ports(self, node: int) -> int:
        return len(self.port_offsets)

    def neighbor(self, node: int, port: int):
        if not 0 <= port < len(self.port_offsets) or not self.port_connected[port]:
            return None
        return (node + self.port_offsets[port]) % self.n, port ^ 1

    def port_name(self, node: int, port: int) -> str:
        if 0 <= port < len(self.port_offsets):
            return ("fwd" if port % 2 == 0 else "bwd") + str(self.chords[port // 2])
        return super().port_name(node, port)

    def is_vertex_transitive_hint(self) -> bool:
        return True

    @property
    def connected_degree(self) -> int:
        return sum(self.port_connected)


class BipartitePDN(Topology):
    """The bipartite host/switch PDN (Fig. 2b, Fig. 8): hosts 0..n-1, switches n..2n-1."""

    family = "pdn_bipartite"

    def __init__(self, pds):
        self.pds = tuple(sorted(as_pds(pds)))
        self.delta = len(self.pds) - 1
        self.n = pds_modulus(self.delta)

    @property
    def params(self) -> dict:
        return {"set": ",".join(str(e) for e in self.pds)}

    @property
    def num_nodes(self) -> int:
        return 2 * self.n

    def is_host(self, node: int) -> bool:
        return node < self.n

    def num_ports(self, node: int) -> int:
        return self.delta + 1

    def neighbor(self, node: int, port: int):
        if not 0 <= port <= self.delta:
            return None
        s = self.pds[port]
        if node < self.n:
            return self.n + (node + s) % self.n, port
        return (node - self.n - s) % self.n, port

    def port_name(self, node: int, port: int) -> str:
        if 0 <= port <= self.delta:
            return ("up" if node < self.n else "down") + str(self.pds[port])
        return super().port_name(node, port)

    def format_node(self, node: int) -> str:
        return str(node) if node < self.n else f"{node - self.n}'"

    def parse_node(self, text: str) -> int:
        t = str(text).strip()
        if t.endswith("'"):
            base = t[:-1]
            if not base.isdigit() or not 0 <= int(base) < self.n:
                raise CubenocError(f"switch address must be k' with k in 0..{self.n - 1}, got {text!r}")
            return self.n + int(base)
        return super().parse_node(t)


class ProductPDN(Topology):
    """``H_{q-1} x ... x H_0`` (Definition 3). ``factors`` in the paper's written order, highest
    dimension first: ``ProductPDN([H1, H0])``; each factor a PerfectDifferenceNetwork, a set or an order."""

    family = "pdn_product"

    def __init__(self, factors):
        try:
            factors = list(factors)
        except TypeError:
            raise CubenocError(f"factors must be a list of PDNs (H_(q-1), ..., H_0), got {factors!r}") from None
        if len(factors) < 1:
            raise CubenocError("a multidimensional PDN needs at least one factor")
        written = [f if isinstance(f, PerfectDifferenceNetwork) else PerfectDifferenceNetwork(f) for f in factors]
        #: dims[i] is H_i (dimension 0 = least significant = rightmost in the paper's notation)
        self.dims = list(reversed(written))
        self.q = len(self.dims)
        self.radix = [h.n for h in self.dims]
        self.weights = [math.prod(self.radix[:i]) for i in range(self.q)]
        self.port_base = [sum(h.num_ports(0) for h in self.dims[:i]) for i in range(self.q)]
        total = math.prod(self.radix)
        if total > 1 << 16:
            raise CubenocError(f"a multidimensional PDN may have at most 65536 nodes (DEST_WIDTH = 16), got {total}")

    @property
    def params(self) -> dict:
        return {"sets": "x".join("{" + ",".join(map(str, h.pds)) + "}" for h in reversed(self.dims))}

    @property
    def name(self) -> str:
        return "pdnx_" + "x".join("_".join(map(str, h.pds)) for h in reversed(self.dims))

    @property
    def num_nodes(self) -> int:
        return math.prod(self.radix)

    def coords(self, node: int) -> list[int]:
        """``[x_0, x_1, ..., x_{q-1}]`` (dimension 0 first)."""
        return [(node // w) % r for w, r in zip(self.weights, self.radix)]

    def node_of(self, coords) -> int:
        return sum(c * w for c, w in zip(coords, self.weights))

    def num_ports(self, node: int) -> int:
        return sum(h.num_ports(0) for h in self.dims)

    def port_dim(self, port: int) -> tuple[int, int]:
        """``(dimension, port within that dimension)``."""
        for i in reversed(range(self.q)):
            if port >= self.port_base[i]:
                return i, port - self.port_base[i]
        raise CubenocError(f"port must be non-negative, got {port}")

    def neighbor(self, node: int, port: int):
        if not 0 <= port < self.num_ports(node):
            return None
        i, p = self.port_dim(port)
        x = self.coords(node)
        far = self.dims[i].neighbor(x[i], p)
        if far is None:
            return None
        x[i] = far[0]
        return self.node_of(x), self.port_base[i] + far[1]

    def port_name(self, node: int, port: int) -> str:
        if 0 <= port < self.num_ports(node):
            i, p = self.port_dim(port)
            return f"d{i}_{self.dims[i].port_name(0, p)}"
        return super().port_name(node, port)

    def format_node(self, node: int) -> str:
        return ",".join(str(c) for c in reversed(self.coords(node)))

    def parse_node(self, text: str) -> int:
        t = str(text).strip()
        if "," in t:
            try:
                parts = [int(c) for c in reversed(t.split(","))]
            except ValueError:
                raise CubenocError(f"bad node address {text!r} for {self}: expected x_(q-1),...,x_0") from None
            if len(parts) != self.q or any(not 0 <= c < r for c, r in zip(parts, self.radix)):
                raise CubenocError(f"node address {text!r} needs {self.q} coordinates with x_i in 0..n_i-1 "
                                   f"(n = {list(reversed(self.radix))})")
            return self.node_of(parts)
        return super().parse_node(t)

    def is_vertex_transitive_hint(self) -> bool:
        return True


def pdn_power(h, q: int) -> ProductPDN:
    """The power network ``H^q`` (Definition 3)."""
    q = require_int(q, "q", 1, 8)
    h = h if isinstance(h, PerfectDifferenceNetwork) else PerfectDifferenceNetwork(h)
    return ProductPDN([h] * q)
