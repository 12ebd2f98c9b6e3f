"""The topology as an SVG picture with each link coloured by its measured utilisation (the HTML report,
sim/report_page.py): one ``<path class="link">`` per bidirectional link, in the family's layout
(sim/report_layout.py), coloured by the utilisation of the busier of its two directions (flits/cycle, the
scale from 0 to the busiest link of the picture) and widened in proportion to it (up to 1 flit/cycle, the
link's capacity: a lightly loaded network is drawn thin), with both directions'
figures in its ``<title>`` (the browser shows it on hover) and in ``data-`` attributes."""
from __future__ import annotations

from html import escape

import numpy as np

from .plotting import pyplot
from .report_layout import MAX_DRAWN_NODES, link_class, node_positions

#: the colour map of the link loads (matplotlib's name): pale for idle links, dark red for the busiest
COLORMAP = "YlOrRd"
WIDTH = 760          # the picture's width in CSS pixels


def _colour(cmap, x: float) -> str:
    r, g, b, _ = cmap(0.12 + 0.88 * min(max(x, 0.0), 1.0))
    return f"#{int(r * 255):02x}{int(g * 255):02x}{int(b * 255):02x}"


def links_with_load(topo, channel_util) -> list[dict]:
    """Every bidirectional link once: its ends, ports, kind, and the utilisation (flits/cycle) of each
    direction from ``channel_util[v][p]`` (a :class:`~.simulator.PointResult` field)."""
    out = []
    for u, pu, v, pv in topo.links():
        kind, curved = link_class(topo, u, pu)
        out.append({"u": u, "pu": pu, "v": v, "pv": pv, "kind": kind, "curved": curved,
                    "uv": channel_util[u][pu] or 0.0, "vu": channel_util[v][pv] or 0.0})
    return out


def topology_svg(topo, channel_util, title: str = "", uid: str = "t0") -> str:
    """The picture (an ``<svg>`` element), or a ``<p>`` saying why there is none (too many nodes); ``uid``
    makes its element ids unique in a page of several pictures."""
    N = topo.num_nodes
    if N > MAX_DRAWN_NODES:
        return (f"<p class=note>{N:,} nodes: too many to draw (up to {MAX_DRAWN_NODES:,}); the hottest links are "
                f"listed below.</p>")
    cmap = pyplot().colormaps[COLORMAP]
    pos = node_positions(topo)
    links = links_with_load(topo, channel_util)
    top = max([max(k["uv"], k["vu"]) for k in links] + [1e-12])      # the darkest colour
    ctrl = {i: _bend(pos[k["u"]], pos[k["v"]], pos.mean(axis=0)) for i, k in enumerate(links) if k["curved"]}
    ends = [pos] + [((pos[links[i]["u"]] + pos[links[i]["v"]]) / 2 + c) / 2 for i, c in ctrl.items()]  # curves' peaks
    lo, hi = np.vstack(ends).min(axis=0), np.vstack(ends).max(axis=0)
    size = np.maximum(hi - lo, 1e-9)
    margin = 28.0
    scale = (WIDTH - 2 * margin) / max(size[0], size[1] * 1.0)
    height = int(size[1] * scale + 2 * margin + 34)
    xy = (pos - lo) * scale + margin
    dist = np.sort(np.hypot(*(xy[:, None, :] - xy[None, :, :]).transpose(2, 0, 1)).ravel())
    nearest = float(dist[N]) if N > 1 and dist.size > N else 20.0      # the closest two distinct nodes
    r = max(2.0, min(9.0, nearest * 0.3))
    label = N <= 64 and r >= 5.5
    parts = [f'<svg class=topology xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
             f'viewBox="0 0 {WIDTH} {height}" role="img" aria-label="{escape(title)}">',
             '<g class=links fill="none" stroke-linecap="round">']
    for i, k in enumerate(links):
        (x1, y1), (x2, y2) = xy[k["u"]], xy[k["v"]]
        busy = max(k["uv"], k["vu"])
        w = 0.8 + 5.2 * min(busy, 1.0)
        if k["curved"]:
            cx, cy = (ctrl[i] - lo) * scale + margin
            d = f"M{x1:.1f} {y1:.1f}Q{cx:.1f} {cy:.1f} {x2:.1f} {y2:.1f}"
        else:
            d = f"M{x1:.1f} {y1:.1f}L{x2:.1f} {y2:.1f}"
        a, b = topo.format_node(k["u"]), topo.format_node(k["v"])
        tip = (f"{a} \u2192 {b}: {k['uv']:.4f} flits/cycle\n{b} \u2192 {a}: {k['vu']:.4f} flits/cycle\n"
               f"{k['kind']} (ports {k['pu']}, {k['pv']})")
        dash = ' stroke-dasharray="5 3"' if k["curved"] else ""
        parts.append(f'<path class=link d="{d}" stroke="{_colour(cmap, busy / top)}" stroke-width="{w:.2f}"{dash} '
                     f'data-u="{k["u"]}" data-pu="{k["pu"]}" data-v="{k["v"]}" data-pv="{k["pv"]}" '
                     f'data-util-uv="{k["uv"]:.6g}" data-util-vu="{k["vu"]:.6g}">'
                     f'<title>{escape(tip)}</title></path>')
    parts.append("</g><g class=nodes>")
    for v in range(N):
        x, y = xy[v]
        name = escape(topo.format_node(v))
        parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r:.1f}" fill="#fff" stroke="#333" stroke-width="1">'
                     f'<title>node {name} ({v})</title></circle>')
        if label:
            parts.append(f'<text x="{x:.1f}" y="{y - r - 2:.1f}" font-size="8" text-anchor="middle" '
                         f'fill="#444">{name}</text>')
    parts.append("</g>")
    curved = sorted({k["kind"] for k in links if k["curved"]})
    parts.append(_colour_bar(cmap, height - 22, uid, curved, top))
    parts.append("</svg>")
    return "".join(parts)


def _bend(a: np.ndarray, b: np.ndarray, centre: np.ndarray) -> np.ndarray:
    """The control point of a curved link from ``a`` to ``b``: bent away from the drawing's middle by a sixth
    of its length."""
    mid = (a + b) / 2
    normal = np.array([-(b[1] - a[1]), b[0] - a[0]])
    if float(np.dot(mid - centre, normal)) < 0:
        normal = -normal
    return mid + normal / 6


def _colour_bar(cmap, y: float, uid: str, curved: list[str], top: float) -> str:
    """The scale under the picture: 0 .. ``top``, the busiest link's flits/cycle; ``curved``: the kinds of link
    drawn dashed."""
    stops = "".join(f'<stop offset="{t:.2f}" stop-color="{_colour(cmap, t)}"/>' for t in np.linspace(0, 1, 9))
    return (f'<defs><linearGradient id="{uid}-scale">{stops}</linearGradient></defs>'
            f'<rect x="28" y="{y:.0f}" width="240" height="10" fill="url(#{uid}-scale)" stroke="#999" '
            f'stroke-width=".5"/>'
            f'<text x="28" y="{y + 20:.0f}" font-size="10">0</text>'
            f'<text x="268" y="{y + 20:.0f}" font-size="10" text-anchor="end">{top:.3g}</text>'
            f'<text x="280" y="{y + 9:.0f}" font-size="10">flits/cycle, the busier direction of a link; width: '
            f'0 to 1, its capacity{"; dashed: " + escape(", ".join(curved)) if curved else ""}</text>')
