"""BookSim anynet files: read one into an :class:`~cubenoc.sim.topology.anynet.AnyNetwork`, write any
network as one (docs/anynet.md).

The subset read: one line per router, ``router R node R router R1 router R2 ...``: the router, its one
node (whose id must be the router's), and the routers it links to. As BookSim reads it, a link is added
both ways, so a link may be listed on one of its routers' lines or on both. Blank lines are skipped; ``//``
or ``#`` starts a comment (an extension: BookSim has none). Router ids are ``0 .. N-1``, each with its own
line. Not supported, each refused in one line naming the file and line: link weights (a number after a
neighbour), several nodes on one router, a node id other than its router's, a node listed as a neighbour.

Ports: router R's network ports are its neighbours in the order they first appear on R's own line, then
those that only name R on their lines, in file order. :func:`anynet_text` writes every network with its own
port order, so a family written and read back keeps its port numbers.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from cubenoc.errors import CubenocError
from cubenoc.files import example_or_path, read_text

from .topology.anynet import MAX_PORTS, MAX_ROUTERS, AnyNetwork

GRAMMAR = "router R node R router R1 router R2 ... (one line per router)"


def read_anynet(path) -> AnyNetwork:
    """The network of the anynet file ``path`` (cached while the file is unchanged); a path not found that
    names an example (``examples/q4.anynet``, ``q4.anynet``) reads the one installed with cubenoc."""
    p = example_or_path(path, ".anynet", "anynet")
    try:
        st = p.stat()
    except OSError as exc:
        raise CubenocError(f"anynet {path}: cannot read it ({exc.strerror or exc})") from None
    return _read(str(path) if p == Path(path) else str(p), st.st_mtime_ns, st.st_size)


@lru_cache(maxsize=16)
def _read(path: str, _mtime: int, _size: int) -> AnyNetwork:
    return AnyNetwork(parse_anynet(read_text(path, "anynet"), path), source=path)


def parse_anynet(text: str, where: str = "anynet") -> list[list[int]]:
    """The adjacency (router -> neighbours in port order) of an anynet file's ``text``; ``where`` names the
    file in the errors (``anynet q4.anynet line 3: ...``)."""
    own: dict[int, list[int]] = {}          # router -> neighbours on its own line
    line_of: dict[int, int] = {}            # router -> its line
    mentions: list[tuple[int, int, int]] = []   # (router, neighbour, line)

    def err(line, msg):
        return CubenocError(f"anynet {where} line {line}: {msg}")

    for ln, raw in enumerate(text.splitlines(), start=1):
        body = raw.split("#", 1)[0].split("//", 1)[0].split()
        if not body:
            continue
        words = iter(body)
        first, idw = next(words), next(words, None)
        if first.lower() != "router":
            raise err(ln, f"a line starts with 'router R', got {first!r} ({GRAMMAR})")
        if idw is None or not idw.isdigit():
            raise err(ln, f"'router' needs a number after it, got {idw!r} ({GRAMMAR})")
        r = int(idw)
        if r in line_of:
            raise err(ln, f"router {r} is listed twice (first on line {line_of[r]})")
        if len(line_of) >= MAX_ROUTERS:
            raise err(ln, f"more than {MAX_ROUTERS:,} routers: the route tables hold every pair of routers")
        line_of[r], own[r] = ln, []
        node_seen = False
        last = None
        for word in words:
            if word.lstrip("-").isdigit():
                if last == "router":
                    raise err(ln, f"a number after a neighbour ({word}) is a link weight: link weights are not "
                                  f"supported (every link is one cycle)")
                raise err(ln, f"unexpected number {word!r} ({GRAMMAR})")
            kind = word.lower()
            if kind not in ("router", "node"):
                raise err(ln, f"unknown word {word!r}: a line is {GRAMMAR}")
            idw = next(words, None)
            if idw is None or not idw.isdigit():
                raise err(ln, f"'{kind}' needs a number after it, got {idw!r}")
            ident = int(idw)
            if kind == "node":
                if node_seen:
                    raise err(ln, f"router {r} has a second node ({ident}): several nodes per router are not "
                                  f"supported (one node per router, node id = router id)")
                if ident != r:
                    raise err(ln, f"router {r} has node {ident}: the node id must be the router id (one node "
                                  f"per router)")
                node_seen = True
            else:
                if ident == r:
                    raise err(ln, f"router {r} links to itself")
                if ident not in own[r]:
                    own[r].append(ident)
                    mentions.append((r, ident, ln))
            last = kind
        if not node_seen:
            raise err(ln, f"router {r} has no node: each router has one node with its id ('router {r} node {r} ...')")
    return _links(own, line_of, mentions, err, where)


def _links(own, line_of, mentions, err, where) -> list[list[int]]:
    """The adjacency of the routers parsed by :func:`parse_anynet`, every link both ways, checked: ids
    0..N-1, no link to nowhere, at most the router's ports, connected."""
    if not line_of:
        raise CubenocError(f"anynet {where}: no routers (a line is {GRAMMAR})")
    n = len(line_of)
    missing = sorted(set(range(n)) - set(line_of))
    if missing:
        top = max(line_of)
        raise err(line_of[top], f"router ids are 0..N-1 with a line each: router {top} is here but router "
                                f"{missing[0]} has no line")
    for r, w, ln in mentions:
        if w not in line_of:
            raise err(ln, f"router {r} links to router {w}, which has no line (a link to nowhere; routers are "
                          f"0..{n - 1})")
    adj = [list(own[r]) for r in range(n)]
    for r, w, _ln in mentions:                         # BookSim adds every link both ways
        if r not in adj[w]:
            adj[w].append(r)
    for r in range(n):
        if len(adj[r]) > MAX_PORTS:
            raise err(line_of[r], f"router {r} has {len(adj[r])} links; a router has at most {MAX_PORTS} network "
                                  f"ports")
    comp = _component(adj)
    if len(comp) != n:
        away = min(set(range(n)) - comp)
        raise err(line_of[away], f"the network is not connected: router {away} cannot reach router 0 "
                                 f"({len(comp)} of {n} routers can)")
    return adj


def _component(adj) -> set:
    seen, stack = {0}, [0]
    while stack:
        for w in adj[stack.pop()]:
            if w not in seen:
                seen.add(w)
                stack.append(w)
    return seen


def anynet_text(topology) -> str:
    """``topology`` as an anynet file: each router's line lists every neighbour in its port order (so a
    file read back has the same ports). A network with unconnected ports keeps its connected ones in order;
    parallel links (two ports to one neighbour) are refused: the format has one link per router pair."""
    lines = []
    for v in topology.nodes():
        far = [topology.neighbor(v, p) for p in range(topology.num_ports(v))]
        nbrs = [f[0] for f in far if f is not None]
        if len(set(nbrs)) != len(nbrs):
            raise CubenocError(f"{topology!r}: router {v} has two links to one neighbour; an anynet file has one "
                               f"link per router pair")
        lines.append(" ".join([f"router {v} node {v}"] + [f"router {w}" for w in nbrs]))
    return "\n".join(lines) + "\n"
